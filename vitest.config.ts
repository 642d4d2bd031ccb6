import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    environment: 'node',
    include: ['test/unit/**/*.test.ts'],
    testTimeout: 60_000,
    // A failed toEqual on large values (64 KiB payloads) made vitest's Myers line diff spin for minutes
    // (it cannot be interrupted); diff only the first 2,000 lines of each side. The check itself is unchanged.
    diff: { truncateThreshold: 2000 },
    // builds out/ once when any source is newer (the CLI, live and UI tests run the build)
    globalSetup: ['test/global-build.ts']
  }
})
