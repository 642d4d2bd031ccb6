/// <reference types="vite/client" />

import type { InspectorApi } from '../../src-shared/api'

declare global {
  interface Window {
    /** The engine API, exposed by the Electron preload. Undefined in a plain browser. */
    api?: InspectorApi
  }
}

export {}
