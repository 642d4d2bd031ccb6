// The window: toolbar (open, filter bar, panels, export, theme), timeline over the detail area (tree
// beside hex/JSON), an optional side panel (conversations, keys, statistics), the status bar.

import { useEffect, useState } from 'react'
import { CapturePanel } from './components/CapturePanel'
import { Conversations } from './components/Conversations'
import { DetailTree } from './components/DetailTree'
import { ExportDialog } from './components/ExportDialog'
import { FilterBar } from './components/FilterBar'
import { HexView } from './components/HexView'
import { JsonView } from './components/JsonView'
import { KeyPanel } from './components/KeyPanel'
import { OpenDialog } from './components/OpenDialog'
import { Splitter } from './components/Splitter'
import { Stats } from './components/Stats'
import { StatusBar } from './components/StatusBar'
import { Timeline } from './components/Timeline'
import { useInspector, type Panel } from './state/store'

const PANELS: { id: Panel; label: string; key: string }[] = [
  { id: 'conversations', label: 'Conversations', key: 'conversations' },
  { id: 'keys', label: 'Keys', key: 'keys' },
  { id: 'stats', label: 'Statistics', key: 'stats' }
]

export function App() {
  const theme = useInspector((s) => s.theme)
  const panel = useInspector((s) => s.panel)
  const bottomTab = useInspector((s) => s.bottomTab)
  const notice = useInspector((s) => s.notice)
  const api = useInspector((s) => s.api)
  const { setPanel, setBottomTab, toggleTheme, openExport, chooseFile } = useInspector.getState()
  const [openDialog, setOpenDialog] = useState(false)
  const [dragging, setDragging] = useState(false)
  const [timelineHeight, setTimelineHeight] = useState(() => Math.round(window.innerHeight * 0.46))
  const [treeWidth, setTreeWidth] = useState(() => Math.round(window.innerWidth * 0.42))
  const [sideWidth, setSideWidth] = useState(360)

  useEffect(() => {
    document.documentElement.dataset.theme = theme
  }, [theme])

  const open = () => (api?.chooseCapture ? void chooseFile() : setOpenDialog(true))

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const mod = e.ctrlKey || e.metaKey
      if (!mod || e.altKey) return
      const inEditor = (e.target as HTMLElement | null)?.closest?.('.json-view')
      const k = e.key.toLowerCase()
      if (k === 'f' && !inEditor) useInspector.setState((s) => ({ focusFilter: s.focusFilter + 1 }))
      else if (k === 'o') open()
      else if (k === 'e') openExport('json')
      else if (k === 'k') setPanel('keys')
      else return
      e.preventDefault()
    }
    window.addEventListener('keydown', onKey)
    return () => window.removeEventListener('keydown', onKey)
  }, [api])

  // Drag and drop of capture files (Electron knows the dropped file's path; a browser does not).
  const onDrop = (e: React.DragEvent) => {
    e.preventDefault()
    setDragging(false)
    const file = e.dataTransfer.files[0]
    if (!file) return
    const path = api?.pathForFile?.(file)
    if (path) void useInspector.getState().open(path)
    else useInspector.getState().notify('error', 'In the browser, open captures by path (Open…) or start gamewire serve with the file.')
  }

  return (
    <div
      className="app"
      onDragOver={(e) => {
        if (e.dataTransfer.types.includes('Files')) {
          e.preventDefault()
          setDragging(true)
        }
      }}
      onDragLeave={(e) => e.currentTarget === e.target && setDragging(false)}
      onDrop={onDrop}
    >
      <header className="toolbar">
        <div className="brand" title="gamewire: packet inspector for Photon, SmartFoxServer 2X and FigNet">
          <span className="logo">◆</span> gamewire
        </div>
        <button className="button" onClick={open} title="Open a capture (Ctrl+O)">
          Open…
        </button>
        <button className="button" onClick={() => useInspector.getState().setCaptureDialog(true)} title="Live capture" data-testid="capture-button">
          Capture…
        </button>
        <FilterBar />
        <nav className="panel-tabs">
          {PANELS.map((p) => (
            <button key={p.id} className={`tab ${panel === p.id ? 'active' : ''}`} onClick={() => setPanel(p.id)} data-testid={`panel-${p.key}`} aria-pressed={panel === p.id}>
              {p.label}
            </button>
          ))}
        </nav>
        <button className="button" onClick={() => openExport('json')} title="Export (Ctrl+E)" data-testid="export-button">
          Export…
        </button>
        <button className="icon-button" onClick={toggleTheme} title={`Switch to ${theme === 'dark' ? 'light' : 'dark'} theme`} data-testid="theme-toggle">
          {theme === 'dark' ? '☀' : '☾'}
        </button>
      </header>
      <div className="workspace">
        <main className="main-area">
          <div className="timeline-pane" style={{ height: timelineHeight }}>
            <Timeline />
          </div>
          <Splitter direction="column" onResize={(d) => setTimelineHeight((h) => Math.max(120, Math.min(window.innerHeight - 220, h + d)))} />
          <div className="detail-area">
            <div className="tree-pane" style={{ width: treeWidth }}>
              <DetailTree />
            </div>
            <Splitter direction="row" onResize={(d) => setTreeWidth((w) => Math.max(240, Math.min(window.innerWidth - 320, w + d)))} />
            <div className="bytes-pane">
              <div className="tabs bottom-tabs" role="tablist">
                <button role="tab" className={`tab ${bottomTab === 'hex' ? 'active' : ''}`} aria-selected={bottomTab === 'hex'} onClick={() => setBottomTab('hex')} data-testid="tab-hex">
                  Bytes
                </button>
                <button role="tab" className={`tab ${bottomTab === 'json' ? 'active' : ''}`} aria-selected={bottomTab === 'json'} onClick={() => setBottomTab('json')} data-testid="tab-json">
                  JSON
                </button>
              </div>
              {bottomTab === 'hex' ? <HexView /> : <JsonView />}
            </div>
          </div>
        </main>
        {panel && (
          <>
            <Splitter direction="row" onResize={(d) => setSideWidth((w) => Math.max(260, Math.min(720, w - d)))} />
            <aside className="side" style={{ width: sideWidth }}>
              {panel === 'conversations' && <Conversations />}
              {panel === 'keys' && <KeyPanel />}
              {panel === 'stats' && <Stats />}
            </aside>
          </>
        )}
      </div>
      <StatusBar />
      <ExportDialog />
      <CapturePanel />
      {openDialog && <OpenDialog onClose={() => setOpenDialog(false)} />}
      {notice && (
        <div className={`toast ${notice.kind}`} role="status" data-testid="notice">
          {notice.text}
        </div>
      )}
      {dragging && <div className="drop-overlay">Drop a capture to open it</div>}
    </div>
  )
}
