import type { ConversationInfo } from '../../src-shared/model/types'
import { useInspector, type InspectorState } from './store'

const count = new Intl.NumberFormat('en-US')

function baseName(path: string): string {
  return path.split(/[\\/]/).pop() || path
}

function plural(n: number, word: string): string {
  return `${count.format(n)} ${word}${n === 1 ? '' : 's'}`
}

function percent(bytes: number, total: number): string {
  return total > 0 ? `${Math.min(100, Math.floor((bytes / total) * 100))}%` : ''
}

function ConversationTable({ conversations }: { conversations: ConversationInfo[] }) {
  return (
    <table className="conversations" data-testid="conversations">
      <thead>
        <tr>
          <th className="num">ID</th>
          <th>Transport</th>
          <th>Client</th>
          <th>Server</th>
          <th>Protocol</th>
          <th>Stack</th>
          <th className="num">Frames</th>
          <th className="num">Bytes</th>
        </tr>
      </thead>
      <tbody>
        {conversations.length === 0 ? (
          <tr>
            <td className="empty" colSpan={8}>
              No conversations in this capture
            </td>
          </tr>
        ) : (
          conversations.map((c) => (
            <tr key={c.id} title={c.notes.join('\n') || undefined}>
              <td className="num">{c.id}</td>
              <td className="transport">{c.transport.toUpperCase()}</td>
              <td className="addr">{c.client}</td>
              <td className="addr">{c.server}</td>
              <td>{c.protocol || '—'}</td>
              <td className="stack">{c.stack.join(' / ') || '—'}</td>
              <td className="num">{count.format(c.frames)}</td>
              <td className="num">{count.format(c.bytes)}</td>
            </tr>
          ))
        )}
      </tbody>
    </table>
  )
}

function StatusBar({ state }: { state: InspectorState }) {
  const { status, summary, progress, error } = state
  let content
  if (status === 'no-engine') content = <span>No engine connected</span>
  else if (status === 'loading')
    content = <span>Opening capture… {progress ? percent(progress.bytes, progress.total) : ''}</span>
  else if (status === 'error') content = <span className="error">Error: {error}</span>
  else if (status === 'ready' && summary)
    content = (
      <>
        <span className="file" title={summary.file}>
          {baseName(summary.file)}
        </span>
        <span>{plural(summary.frames, 'frame')}</span>
        <span>{plural(summary.messages, 'message')}</span>
        <span>{plural(summary.conversations.length, 'conversation')}</span>
        {summary.warnings.length > 0 && (
          <span className="warn" title={summary.warnings.join('\n')}>
            {plural(summary.warnings.length, 'warning')}
          </span>
        )}
      </>
    )
  else content = <span>No capture open</span>
  return (
    <footer className="status-bar" data-testid="status-bar">
      {content}
    </footer>
  )
}

export function App() {
  const state = useInspector()
  const { status, summary, error } = state
  return (
    <div className="app">
      <header className="toolbar">
        <h1>gamewire</h1>
      </header>
      <main className="content">
        {status === 'ready' && summary ? (
          <ConversationTable conversations={summary.conversations} />
        ) : (
          <div className="placeholder">
            {status === 'no-engine' && (
              <>
                <strong>No engine connected</strong>
                <p>Start gamewire as the desktop app or with gamewire serve to inspect captures.</p>
              </>
            )}
            {(status === 'loading' || status === 'idle') && <p>Opening capture…</p>}
            {status === 'error' && (
              <>
                <strong>Could not open the capture</strong>
                <p className="error">{error}</p>
              </>
            )}
          </div>
        )}
      </main>
      <StatusBar state={state} />
    </div>
  )
}
