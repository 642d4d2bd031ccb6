// Status bar: file or interface, frames, messages, errors, capture state, drop counts, running jobs.

import { baseName, num, plural } from '../format'
import { useInspector } from '../state/store'

export function StatusBar() {
  const status = useInspector((s) => s.status)
  const view = useInspector((s) => s.view)
  const jobs = useInspector((s) => s.jobs)
  const { cancelJob } = useInspector.getState()
  const running = jobs.filter((j) => j.state === 'running')
  const cap = status?.captureState
  const source = status?.source
  const progress = status?.progress
  // The capture's state and counters describe the live capture: once a file is the open capture they
  // no longer apply (unless a capture is running meanwhile).
  const live = source?.kind === 'interface' || cap?.state === 'capturing' || cap?.state === 'starting' || cap?.state === 'stopping'

  return (
    <footer className="status-bar" data-testid="status-bar" data-phase={status?.phase ?? 'none'}>
      {!status && <span>Connecting…</span>}
      {status && (
        <>
          <span className="source" title={source?.kind === 'file' ? source.path : source?.kind === 'interface' ? source.name : ''}>
            {source?.kind === 'file' ? baseName(source.file) : source?.kind === 'interface' ? `Interface ${source.name}` : 'No capture'}
          </span>
          {status.phase === 'opening' && progress && (
            <span className="opening">
              Reading {progress.total ? Math.floor((100 * progress.bytes) / progress.total) : 0}%
              <span className="progress-track">
                <span className="progress" style={{ width: `${progress.total ? (100 * progress.bytes) / progress.total : 0}%` }} />
              </span>
            </span>
          )}
          {status.phase === 'ready' && progress && (
            <span className="opening">Re-decoding {Math.round((100 * progress.bytes) / Math.max(1, progress.total))}%</span>
          )}
          {status.phase === 'error' && <span className="error">{status.error}</span>}
          <span data-testid="status-frames">{plural(status.frames, 'frame')}</span>
          <span data-testid="status-messages">{plural(status.messages, 'message')}</span>
          {view && view.count !== view.total && <span className="muted">{num(view.count)} shown</span>}
          <span className={status.errors ? 'error' : 'muted'}>{plural(status.errors, 'error')}</span>
          {status.warned > 0 && <span className="warn">{num(status.warned)} with warnings</span>}
          {status.warnings.length > 0 && (
            <span className="warn" title={status.warnings.join('\n')}>
              ⚠ {plural(status.warnings.length, 'capture warning')}
            </span>
          )}
          <span className="spacer" />
          {running.map((j) => (
            <span key={j.id} className="job" data-testid="job">
              {j.description}
              <span className="progress-track">
                <span className="progress" style={{ width: `${Math.round(j.progress * 100)}%` }} />
              </span>
              <button type="button" className="link" onClick={() => cancelJob(j.id)}>
                Cancel
              </button>
            </span>
          ))}
          <span className="muted" title="Decryption keys in use">
            {plural(status.keys, 'key')}
          </span>
          <span className={`capture capture-${cap?.state ?? 'off'}`} data-testid="capture-state" title={cap?.error ?? 'Live capture'}>
            {cap?.state === 'capturing'
              ? `● Capturing on ${cap.interface}`
              : cap?.state === 'error'
                ? `Capture error`
                : live && cap?.state && cap.state !== 'off'
                  ? `Capture ${cap.state}`
                  : 'Not capturing'}
          </span>
          {live && cap && cap.frames !== undefined && (
            <span
              className="muted"
              data-testid="capture-counts"
              title="Frames libpcap delivered; drops by the kernel/libpcap buffer and by the interface (n/a when libpcap cannot say); frames the ring limit removed"
            >
              {plural(cap.frames, 'frame')} received · dropped {cap.dropped == null ? 'n/a' : num(cap.dropped)} · if-dropped{' '}
              {cap.ifDropped == null ? 'n/a' : num(cap.ifDropped)}
              {cap.ringDropped ? ` · ring dropped ${num(cap.ringDropped)}` : ''}
              {cap.notDelivered ? ` · not delivered ${num(cap.notDelivered)}` : ''}
            </span>
          )}
        </>
      )}
    </footer>
  )
}
