// The app holds the keys it is given as added in the app (KeyEntry.line 0), and its trees name them so. Its
// exports show the same trees, where `gamewire decode --keylog FILE` names the line of FILE instead.
import { expect } from 'vitest'

/** The CLI's document (its PHOTON_AES_KEY on line 1 of the key file) as the app writes it for that key: the labels and `decryptedWith` values that name it. */
export function withAppKeyLabels(cliText: string): string {
  expect(cliText).toContain('PHOTON_AES_KEY (line 1)')
  return cliText.replaceAll('PHOTON_AES_KEY (line 1)', 'PHOTON_AES_KEY (added in the app)')
}
