import { resolve } from 'node:path'
import { defineConfig } from 'electron-vite'
import react from '@vitejs/plugin-react'

const here = import.meta.dirname

// One build for every Node-side entry: the Electron main process, the headless CLI and the decode and
// session workers share chunks. Only src-main/electron/ imports 'electron'; cli.js and the workers run
// on plain Node (bin/gamewire.mjs loads cli.js).
export default defineConfig({
  main: {
    build: {
      lib: {
        entry: {
          index: resolve(here, 'src-main/electron/main.ts'),
          cli: resolve(here, 'src-main/cli/main.ts'),
          'decode-worker': resolve(here, 'src-main/host/decode-worker.ts'),
          'session-worker': resolve(here, 'src-main/host/session-worker.ts'),
          'shard-worker': resolve(here, 'src-main/host/shard-worker.ts'),
          'diff-side-worker': resolve(here, 'src-main/host/diff-side-worker.ts'),
          // Live capture runs in its own process: cap works only on a process's main thread.
          'capture-process': resolve(here, 'src-main/capture/capture-process.ts')
        }
      }
    }
  },
  preload: {
    build: {
      lib: { entry: resolve(here, 'src-main/electron/preload.ts') },
      // CommonJS so the preload can run with sandbox: true.
      rolldownOptions: { output: { format: 'cjs' } }
    }
  },
  renderer: {
    root: resolve(here, 'src-renderer'),
    base: './',
    build: { rolldownOptions: { input: resolve(here, 'src-renderer/index.html') } },
    plugins: [react()]
  }
})
