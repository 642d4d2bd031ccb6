// Export: decoded JSON (all, filtered or selected, in the contract's format) or the frames as pcapng.
// The work runs on the host with progress in the status bar and can be cancelled.

import { useState } from 'react'
import type { ExportFormat, ExportScope } from '../../../src-shared/api'
import { num, plural } from '../format'
import { useInspector } from '../state/store'

export function ExportDialog() {
  const dialog = useInspector((s) => s.exportDialog)
  return dialog ? <ExportForm initialFormat={dialog.format} /> : null
}

function ExportForm({ initialFormat }: { initialFormat: ExportFormat }) {
  const view = useInspector((s) => s.view)
  const selectedId = useInspector((s) => s.selectedId)
  const picked = useInspector((s) => s.picked)
  const jobs = useInspector((s) => s.jobs)
  const { closeExport, startExport, cancelJob } = useInspector.getState()
  const [format, setFormat] = useState<ExportFormat>(initialFormat)
  const [scope, setScope] = useState<ExportScope>(view?.filter ? 'filtered' : 'all')
  const [includeKeys, setIncludeKeys] = useState(false)
  const [includeTrees, setIncludeTrees] = useState(true)
  const [jobId, setJobId] = useState<number | null>(null)
  const ids = [...new Set([...(selectedId !== null ? [selectedId] : []), ...picked])]
  const job = jobs.find((j) => j.id === jobId)
  const start = async () => {
    const decoded = format !== 'pcapng'
    const j = await startExport({
      format,
      scope,
      ...(scope === 'selected' ? { ids } : {}),
      ...(decoded && includeKeys ? { includeKeys } : {}),
      ...(decoded && !includeTrees ? { tree: 'none' as const } : {})
    })
    if (j) setJobId(j.id)
  }
  const counts: Record<ExportScope, string> = {
    all: plural(view?.total ?? 0, 'message'),
    filtered: view?.filter ? `${plural(view.count, 'message')} matching the filter` : 'no filter applied',
    selected: `${num(ids.length)} selected`
  }
  return (
    <div className="modal-backdrop" onMouseDown={(e) => e.target === e.currentTarget && closeExport()}>
      <div className="modal" role="dialog" aria-label="Export" data-testid="export-dialog">
        <h2>Export</h2>
        <fieldset>
          <legend>Format</legend>
          {(['json', 'ndjson', 'pcapng'] as const).map((f) => (
            <label key={f} className="radio">
              <input type="radio" name="format" checked={format === f} onChange={() => setFormat(f)} data-testid={`export-format-${f}`} />
              {f === 'json' ? 'Decoded JSON (gamewire/1)' : f === 'ndjson' ? 'Decoded NDJSON (one message per line)' : 'Frames as pcapng'}
            </label>
          ))}
        </fieldset>
        <fieldset>
          <legend>Messages</legend>
          {(['all', 'filtered', 'selected'] as const).map((s) => (
            <label key={s} className="radio">
              <input
                type="radio"
                name="scope"
                checked={scope === s}
                onChange={() => setScope(s)}
                disabled={(s === 'filtered' && !view?.filter) || (s === 'selected' && ids.length === 0)}
                data-testid={`export-scope-${s}`}
              />
              {s[0].toUpperCase() + s.slice(1)} <span className="muted">({counts[s]})</span>
            </label>
          ))}
        </fieldset>
        {format !== 'pcapng' && (
          <>
            <label className="check">
              <input type="checkbox" checked={includeTrees} onChange={(e) => setIncludeTrees(e.target.checked)} data-testid="export-trees" />
              Include each message's field tree <span className="muted">(off: typed values only, smaller and faster)</span>
            </label>
            <label className="check">
              <input type="checkbox" checked={includeKeys} onChange={(e) => setIncludeKeys(e.target.checked)} />
              Include the decryption keys in the export
            </label>
          </>
        )}
        {job && (
          <div className="job-state">
            {job.state === 'running' && (
              <>
                <span className="progress-track wide">
                  <span className="progress" style={{ width: `${Math.round(job.progress * 100)}%` }} />
                </span>
                <button type="button" className="button small" onClick={() => cancelJob(job.id)}>
                  Cancel
                </button>
              </>
            )}
            {job.state === 'done' && (
              <span data-testid="export-done">
                Done: {plural(job.result?.messages ?? 0, 'message')}
                {job.result?.file ? ` written to ${job.result.file}` : ', downloading'}.
              </span>
            )}
            {job.state === 'cancelled' && <span>Cancelled.</span>}
            {job.state === 'failed' && <span className="error">{job.error}</span>}
          </div>
        )}
        <div className="modal-actions">
          <button type="button" className="button" onClick={closeExport}>
            Close
          </button>
          <button type="button" className="button primary" onClick={() => void start()} disabled={job?.state === 'running'} data-testid="export-start">
            Export
          </button>
        </div>
      </div>
    </div>
  )
}
