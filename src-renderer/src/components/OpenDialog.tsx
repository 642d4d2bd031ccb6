// "Open…" in the browser: the capture is opened by the gamewire host, so it asks for a path there
// (in Electron the native file dialog is used instead).

import { useState } from 'react'
import { useInspector } from '../state/store'

export function OpenDialog({ onClose }: { onClose(): void }) {
  const current = useInspector((s) => (s.status?.source?.kind === 'file' ? s.status.source.path : ''))
  const [path, setPath] = useState(current)
  const open = async () => {
    if (!path.trim()) return
    onClose()
    await useInspector.getState().open(path.trim())
  }
  return (
    <div className="modal-backdrop" onMouseDown={(e) => e.target === e.currentTarget && onClose()}>
      <form
        className="modal"
        role="dialog"
        aria-label="Open a capture"
        onSubmit={(e) => {
          e.preventDefault()
          void open()
        }}
      >
        <h2>Open a capture</h2>
        <p className="muted">A .pcap or .pcapng file on the machine running gamewire serve.</p>
        <input
          className="mono wide-input"
          autoFocus
          value={path}
          onChange={(e) => setPath(e.target.value)}
          placeholder="/path/to/capture.pcapng"
          spellCheck={false}
        />
        <div className="modal-actions">
          <button
            type="button"
            className="button"
            onClick={() => {
              onClose()
              void useInspector.getState().open()
            }}
          >
            Open the demo
          </button>
          <span className="spacer" />
          <button type="button" className="button" onClick={onClose}>
            Cancel
          </button>
          <button type="submit" className="button primary" disabled={!path.trim()}>
            Open
          </button>
        </div>
      </form>
    </div>
  )
}
