import { readdirSync, readlinkSync } from 'node:fs'

/**
 * How many files this process (every thread) holds open whose path contains `text` (Linux: /proc/self/fd).
 * Temporary files are removed from their folder at once and stay open, so this is how tests see them.
 */
export function openFilesNamed(text: string): number {
  return readdirSync('/proc/self/fd').filter((fd) => {
    try {
      return readlinkSync(`/proc/self/fd/${fd}`).includes(text)
    } catch {
      return false // closed between the listing and the read
    }
  }).length
}
