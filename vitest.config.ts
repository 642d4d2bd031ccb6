import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    environment: 'node',
    include: ['test/unit/**/*.test.ts'],
    testTimeout: 60_000,
    // builds out/ once when any source is newer (the CLI, live and UI tests run the build)
    globalSetup: ['test/global-build.ts']
  }
})
