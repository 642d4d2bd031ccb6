// The window: toolbar (open, filter bar, panels, export, theme), timeline over the detail area (tree
// beside hex/JSON), an optional side panel (conversations, keys, statistics, Photon rooms, capture diff,
// schema packs, SQL query), the status bar.

import { useEffect, useLayoutEffect, useRef, useState } from 'react'
import { CapturePanel } from './components/CapturePanel'
import { Conversations } from './components/Conversations'
import { DetailTree } from './components/DetailTree'
import { ExportDialog } from './components/ExportDialog'
import { FilterBar } from './components/FilterBar'
import { HexView } from './components/HexView'
import { JsonView } from './components/JsonView'
import { KeyPanel } from './components/KeyPanel'
import { OpenDialog } from './components/OpenDialog'
import { QueryPanel } from './components/QueryPanel'
import { SchemaPanel } from './components/SchemaPanel'
import { Splitter } from './components/Splitter'
import { Stats } from './components/Stats'
import { StatusBar } from './components/StatusBar'
import { Timeline } from './components/Timeline'
import { RoomsPanel } from './components/RoomsPanel'
import { DiffPanel } from './components/DiffPanel'
import { useInspector, type Panel } from './state/store'

/** Pane sizes the user set (px), kept like the filter history. */
const PANES_KEY = 'gamewire.panes'
/** Readable minimum sizes (px): a timeline of a few rows, a tree, a hex dump with its ASCII column, a side panel. */
export const PANE_MIN = { timeline: 140, detail: 150, tree: 240, bytes: 590, side: 260, sideMax: 720 }

interface PaneSizes {
  timeline: number
  tree: number
  side: number
}

function loadPanes(): PaneSizes {
  const fallback = { timeline: Math.round(window.innerHeight * 0.46), tree: Math.round(window.innerWidth * 0.42), side: 360 }
  try {
    const v = JSON.parse(localStorage.getItem(PANES_KEY) ?? 'null') as Partial<PaneSizes> | null
    const ok = (n: unknown): n is number => typeof n === 'number' && Number.isFinite(n) && n > 0
    return {
      timeline: ok(v?.timeline) ? v.timeline : fallback.timeline,
      tree: ok(v?.tree) ? v.tree : fallback.tree,
      side: ok(v?.side) ? v.side : fallback.side
    }
  } catch {
    return fallback
  }
}

const clamp = (v: number, lo: number, hi: number) => Math.max(lo, Math.min(Math.max(lo, hi), v))

/**
 * The sizes shown in a workspace of `w`×`h`: the user's sizes, shrunk when the window is too small for
 * them so that each pane keeps its minimum (the side panel gives way first, then the tree); the user's
 * sizes come back when the window grows again.
 */
function fitPanes(p: PaneSizes, w: number, h: number, side: boolean): PaneSizes {
  const sideW = side ? clamp(p.side, PANE_MIN.side, Math.min(PANE_MIN.sideMax, w - 1 - PANE_MIN.tree - 1 - PANE_MIN.bytes)) : 0
  const mainW = w - (side ? sideW + 1 : 0)
  return {
    side: sideW,
    tree: clamp(p.tree, PANE_MIN.tree, mainW - 1 - PANE_MIN.bytes),
    timeline: clamp(p.timeline, PANE_MIN.timeline, h - 1 - PANE_MIN.detail)
  }
}

const PANELS: { id: Panel; label: string; key: string }[] = [
  { id: 'conversations', label: 'Conversations', key: 'conversations' },
  { id: 'keys', label: 'Keys', key: 'keys' },
  { id: 'stats', label: 'Statistics', key: 'stats' },
  { id: 'rooms', label: 'Rooms', key: 'rooms' },
  { id: 'diff', label: 'Diff', key: 'diff' },
  { id: 'schemas', label: 'Schemas', key: 'schemas' },
  { id: 'query', label: 'Query', key: 'query' }
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
  const [panes, setPanes] = useState(loadPanes)
  const workspace = useRef<HTMLDivElement>(null)
  const [area, setArea] = useState({ w: window.innerWidth, h: window.innerHeight - 80 })
  useLayoutEffect(() => {
    const el = workspace.current
    if (!el) return
    const measure = () => setArea({ w: el.clientWidth, h: el.clientHeight })
    measure()
    const ro = new ResizeObserver(measure)
    ro.observe(el)
    return () => ro.disconnect()
  }, [])
  useEffect(() => {
    try {
      localStorage.setItem(PANES_KEY, JSON.stringify(panes))
    } catch {
      // storage disabled: sizes last until the page is closed
    }
  }, [panes])
  const fit = fitPanes(panes, area.w, area.h, panel !== null)
  // A drag moves the divider from where it is shown (the fitted size); what it leaves is the new
  // preference. Functional updates, so moves that arrive before a re-render add up.
  const resize = (pane: keyof PaneSizes, delta: number) =>
    setPanes((p) => {
      const shown = fitPanes(p, area.w, area.h, panel !== null)
      const next = fitPanes({ ...shown, [pane]: shown[pane] + delta }, area.w, area.h, panel !== null)
      return { ...p, [pane]: next[pane] }
    })

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
        <button type="button" className="button" onClick={open} title="Open a capture (Ctrl+O)">
          Open…
        </button>
        <button
          type="button"
          className="button"
          onClick={() => useInspector.getState().setCaptureDialog(true)}
          title="Live capture"
          data-testid="capture-button"
        >
          Capture…
        </button>
        <FilterBar />
        <nav className="panel-tabs">
          {PANELS.map((p) => (
            <button
              type="button"
              key={p.id}
              className={`tab ${panel === p.id ? 'active' : ''}`}
              onClick={() => setPanel(p.id)}
              data-testid={`panel-${p.key}`}
              aria-pressed={panel === p.id}
            >
              {p.label}
            </button>
          ))}
        </nav>
        <button type="button" className="button" onClick={() => openExport('json')} title="Export (Ctrl+E)" data-testid="export-button">
          Export…
        </button>
        <button
          type="button"
          className="icon-button"
          onClick={toggleTheme}
          title={`Switch to ${theme === 'dark' ? 'light' : 'dark'} theme`}
          data-testid="theme-toggle"
        >
          {theme === 'dark' ? '☀' : '☾'}
        </button>
      </header>
      <div className="workspace" ref={workspace}>
        <main className="main-area">
          <div className="timeline-pane" style={{ height: fit.timeline }} data-testid="timeline-pane">
            <Timeline />
          </div>
          <Splitter direction="column" testid="split-timeline" onResize={(d) => resize('timeline', d)} />
          <div className="detail-area">
            <div className="tree-pane" style={{ width: fit.tree }} data-testid="tree-pane">
              <DetailTree />
            </div>
            <Splitter direction="row" testid="split-tree" onResize={(d) => resize('tree', d)} />
            <div className="bytes-pane" data-testid="bytes-pane">
              <div className="tabs bottom-tabs" role="tablist">
                <button
                  type="button"
                  role="tab"
                  className={`tab ${bottomTab === 'hex' ? 'active' : ''}`}
                  aria-selected={bottomTab === 'hex'}
                  onClick={() => setBottomTab('hex')}
                  data-testid="tab-hex"
                >
                  Bytes
                </button>
                <button
                  type="button"
                  role="tab"
                  className={`tab ${bottomTab === 'json' ? 'active' : ''}`}
                  aria-selected={bottomTab === 'json'}
                  onClick={() => setBottomTab('json')}
                  data-testid="tab-json"
                >
                  JSON
                </button>
              </div>
              {bottomTab === 'hex' ? <HexView /> : <JsonView />}
            </div>
          </div>
        </main>
        {panel && (
          <>
            <Splitter direction="row" testid="split-side" onResize={(d) => resize('side', -d)} />
            <aside className="side" style={{ width: fit.side }} data-testid="side-pane">
              {panel === 'conversations' && <Conversations />}
              {panel === 'keys' && <KeyPanel />}
              {panel === 'stats' && <Stats />}
              {panel === 'rooms' && <RoomsPanel />}
              {panel === 'diff' && <DiffPanel />}
              {panel === 'schemas' && <SchemaPanel />}
              {panel === 'query' && <QueryPanel />}
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
