// App state (zustand). Talks to the engine only through the InspectorApi given to start(): the preload's
// window.api in Electron, the WebSocket client in a browser. Rows are not in here (see row-cache.ts);
// the store keeps scalars, the selection and the selected message's detail.

import { create } from 'zustand'
import type {
  CaptureStatistics,
  DecodeAsRule,
  ExportRequest,
  FieldInfo,
  FilterCheck,
  InspectorApi,
  InspectorEvent,
  JobInfo,
  KeyInfo,
  MenuAction,
  MessageDetail,
  SessionStatus,
  SortSpec,
  TreeNode,
  ViewInfo,
  ViewSpec
} from '../../../src-shared/api'
import { plural } from '../format'
import { registerFields } from './fields'
import { conversationListCache, timelineRowCache } from './row-cache'

export type Panel = 'conversations' | 'keys' | 'stats' | 'rooms' | 'diff' | 'schemas' | 'query'
export type Theme = 'dark' | 'light'
export type TimeMode = 'absolute' | 'relative'

const HISTORY_KEY = 'gamewire.filterHistory'
const PREFS_KEY = 'gamewire.prefs'
const MAX_HISTORY = 30

function loadJson<T>(key: string, fallback: T): T {
  try {
    const v = localStorage.getItem(key)
    return v ? (JSON.parse(v) as T) : fallback
  } catch {
    return fallback
  }
}

function saveJson(key: string, value: unknown): void {
  try {
    localStorage.setItem(key, JSON.stringify(value))
  } catch {
    // storage full or disabled: preferences are a convenience
  }
}

/** Electron prefixes errors thrown in the main process; keep only the message. */
export function errorMessage(err: unknown): string {
  const text = err instanceof Error ? err.message : String(err)
  return text.replace(/^Error invoking remote method '[^']*': (?:\w*Error: )?/, '')
}

/** Path of a tree node: child indices joined by '/'. */
export function nodeAt(tree: TreeNode[], path: string | null): TreeNode | undefined {
  if (!path) return undefined
  let nodes = tree
  let node: TreeNode | undefined
  for (const part of path.split('/')) {
    node = nodes[Number(part)]
    if (!node) return undefined
    nodes = node.children
  }
  return node
}

/** The deepest node whose bytes (in `source`) include `offset`; ties go to the shortest range. */
export function deepestNodeAt(tree: TreeNode[], source: number, offset: number): string | null {
  let best: { path: string; depth: number; length: number } | null = null
  const walk = (nodes: TreeNode[], prefix: string, depth: number) => {
    nodes.forEach((n, i) => {
      const path = prefix ? `${prefix}/${i}` : String(i)
      if (n.source === source && n.start !== undefined && n.length !== undefined && n.length > 0 && offset >= n.start && offset < n.start + n.length) {
        if (!best || depth > best.depth || (depth === best.depth && n.length < best.length)) best = { path, depth, length: n.length }
      }
      walk(n.children, path, depth + 1)
    })
  }
  walk(tree, '', 0)
  return (best as { path: string } | null)?.path ?? null
}

export interface InspectorState {
  api: InspectorApi | null
  status: SessionStatus | null
  view: ViewInfo | null
  spec: ViewSpec
  filterCheck: FilterCheck | null
  rowsVersion: number
  /** Bumps when the host's lists (conversations, keys, fields) may have changed: the conversation list is fetched again. */
  listsVersion: number
  /** Bumps when entries of the conversation list arrive (conversationCache). */
  conversationsVersion: number
  fields: FieldInfo[]
  keys: KeyInfo[]
  stats: CaptureStatistics | null
  /** Statistics count every message, not only the display filter's. */
  statsAll: boolean

  selectedId: number | null
  /** Extra rows picked with Ctrl+click or a Shift+click range, for "export selected". */
  picked: number[]
  detail: MessageDetail | null
  detailError: string | null
  selectedNode: string | null
  hexSource: number
  expanded: Record<string, boolean>

  panel: Panel | null
  bottomTab: 'hex' | 'json'
  theme: Theme
  timeMode: TimeMode
  filterHistory: string[]
  jobs: JobInfo[]
  exportDialog: { format: ExportRequest['format'] } | null
  /** The live-capture panel is open. */
  captureDialog: boolean
  notice: { kind: 'info' | 'error'; text: string } | null
  /** Bumped by the menu's "focus filter". */
  focusFilter: number

  start(api: InspectorApi | undefined): Promise<void>
  open(path?: string): Promise<void>
  chooseFile(): Promise<void>
  /** Applies a valid filter; an invalid one is not applied and its check is returned (null: applied). */
  applyFilter(text: string): Promise<FilterCheck | null>
  checkFilter(text: string): Promise<FilterCheck | null>
  setSort(sort: SortSpec | null): void
  addColumn(key: string): void
  removeColumn(key: string): void
  select(id: number | null, mode?: 'replace' | 'toggle'): void
  /** Selects the message frame `frame` carries (a summary's "→ frame 3"). */
  goToFrame(frame: number): Promise<void>
  /** A Shift+click range: `ids` (view order) become the selection, `focus` the row shown in detail. */
  selectRange(focus: number, ids: number[]): void
  selectNode(path: string | null): void
  selectByte(source: number, offset: number): void
  setHexSource(i: number): void
  toggleNode(path: string, open?: boolean): void
  expandAll(open: boolean): void
  setPanel(p: Panel | null): void
  setBottomTab(t: 'hex' | 'json'): void
  toggleTheme(): void
  toggleTimeMode(): void
  setDecodeAs(rules: DecodeAsRule[]): Promise<void>
  addKeys(text: string): Promise<KeyInfo[] | null>
  removeKey(line: string): Promise<void>
  loadStats(): Promise<void>
  setStatsAll(all: boolean): void
  openExport(format: ExportRequest['format']): void
  closeExport(): void
  setCaptureDialog(open: boolean): void
  startExport(request: ExportRequest): Promise<JobInfo | null>
  cancelJob(id: number): void
  notify(kind: 'info' | 'error', text: string): void
  /** Fetches the host's fields again (after a capture opens or a schema pack changes). */
  refreshFields(): Promise<void>
}

export const rowCache = timelineRowCache(
  () => useInspector.getState().api,
  () => useInspector.setState((s) => ({ rowsVersion: s.rowsVersion + 1 }))
)

export const conversationCache = conversationListCache(
  () => useInspector.getState().api,
  () => useInspector.setState((s) => ({ conversationsVersion: s.conversationsVersion + 1 }))
)

const prefs = loadJson<{ theme?: Theme; timeMode?: TimeMode; columns?: string[] }>(PREFS_KEY, {})

function expandedFor(tree: TreeNode[], depth = 2): Record<string, boolean> {
  const out: Record<string, boolean> = {}
  const walk = (nodes: TreeNode[], prefix: string, d: number) => {
    nodes.forEach((n, i) => {
      const path = prefix ? `${prefix}/${i}` : String(i)
      // The frame groups (frame, link, IP, UDP/TCP) start closed, as in Wireshark: the message is what one reads.
      if (n.children.length && d < depth && !(d === 0 && n.key === 'frame')) {
        out[path] = true
        walk(n.children, path, d + 1)
      }
    })
  }
  walk(tree, '', 0)
  return out
}

export const useInspector = create<InspectorState>()((set, get) => {
  let detailRequest = 0
  let statsRequest = 0
  let statsView = -1

  const savePrefs = () => {
    const s = get()
    saveJson(PREFS_KEY, { theme: s.theme, timeMode: s.timeMode, columns: s.spec.columns })
  }

  const loadDetail = (id: number) => {
    const api = get().api
    if (!api) return
    const req = ++detailRequest
    api.getMessage(id).then(
      (detail) => {
        if (req !== detailRequest) return
        const keepNode = get().detail?.id === id ? get().selectedNode : null
        set({ detail, detailError: null, selectedNode: keepNode, hexSource: 0, expanded: expandedFor(detail.tree) })
      },
      (e) => {
        if (req === detailRequest) set({ detail: null, detailError: errorMessage(e) })
      }
    )
  }

  const pushView = async (spec: ViewSpec) => {
    const api = get().api
    set({ spec })
    savePrefs()
    if (!api) return
    try {
      await api.setView(spec)
    } catch (e) {
      get().notify('error', errorMessage(e))
    }
  }

  const refreshLists = () => {
    const api = get().api
    if (!api) return
    set((s) => ({ listsVersion: s.listsVersion + 1 }))
    void api.listKeys().then(
      (keys) => set({ keys }),
      () => undefined
    )
    // which fields are present changes with the capture (the column picker lists those first), and
    // schema packs add and remove fields
    void get().refreshFields()
    if (get().panel === 'stats') void get().loadStats()
  }

  const onEvent = (e: InspectorEvent) => {
    switch (e.type) {
      case 'status': {
        const before = get().status
        set({ status: e.status })
        const live = e.status.source?.kind === 'interface'
        // A live capture that starts (again) begins with an empty timeline: drop the old selection.
        if (live && before && (before.source?.kind !== 'interface' || e.status.messages < before.messages))
          set({ selectedId: null, picked: [], detail: null, selectedNode: null })
        // While capturing, conversations appear without a new generation.
        if (live && before && before.conversations !== e.status.conversations) refreshLists()
        if (!before || before.generation !== e.status.generation || before.phase !== e.status.phase) {
          // Other messages now: the old statistics would describe a capture no longer shown.
          if (before && before.generation !== e.status.generation) set({ stats: null })
          refreshLists()
          const sel = get().selectedId
          if (
            e.status.phase === 'opening' &&
            before?.source?.kind === 'file' &&
            e.status.source?.kind === 'file' &&
            before.source.path !== e.status.source.path
          ) {
            set({ selectedId: null, picked: [], detail: null, selectedNode: null })
          } else if (sel !== null && e.status.phase === 'ready') {
            if (sel > e.status.messages) set({ selectedId: null, detail: null })
            else loadDetail(sel)
          }
        }
        break
      }
      case 'view': {
        const v = e.view
        if (v.id !== rowCache.key) rowCache.reset(v.id)
        set((s) => ({ view: v, rowsVersion: s.rowsVersion + 1 }))
        // The statistics follow the display filter: count again once a new view is computed.
        if (v.state === 'done' && v.id !== statsView && get().panel === 'stats') {
          statsView = v.id
          void get().loadStats()
        }
        break
      }
      case 'keys':
        set({ keys: e.keys })
        break
      case 'job': {
        const job = e.job
        set((s) => ({ jobs: [...s.jobs.filter((j) => j.id !== job.id), job].filter((j) => j.state === 'running' || j.id === job.id).slice(-5) }))
        if (job.state === 'done' && job.result) {
          if (job.result.downloadUrl) {
            const a = document.createElement('a')
            a.href = job.result.downloadUrl
            a.download = job.result.fileName
            document.body.appendChild(a)
            a.click()
            a.remove()
          }
          get().notify('info', `Exported ${plural(job.result.messages, 'message')}${job.result.file ? ` to ${job.result.file}` : ''}`)
        } else if (job.state === 'failed') get().notify('error', `Export failed: ${job.error}`)
        break
      }
      case 'menu':
        menu(e.action)
        break
    }
  }

  const menu = (action: MenuAction) => {
    switch (action) {
      case 'export-json':
        return get().openExport('json')
      case 'export-pcapng':
        return get().openExport('pcapng')
      case 'keys':
        return get().setPanel('keys')
      case 'statistics':
        return get().setPanel('stats')
      case 'conversations':
        return get().setPanel('conversations')
      case 'focus-filter':
        return set((s) => ({ focusFilter: s.focusFilter + 1 }))
      case 'capture':
        return set({ captureDialog: true })
    }
  }

  return {
    api: null,
    status: null,
    view: null,
    spec: { filter: '', sort: null, columns: Array.isArray(prefs.columns) ? prefs.columns.filter((c) => typeof c === 'string').slice(0, 8) : [] },
    filterCheck: null,
    rowsVersion: 0,
    listsVersion: 0,
    conversationsVersion: 0,
    fields: [],
    keys: [],
    stats: null,
    statsAll: false,
    selectedId: null,
    picked: [],
    detail: null,
    detailError: null,
    selectedNode: null,
    hexSource: 0,
    expanded: {},
    panel: null,
    bottomTab: 'hex',
    theme: prefs.theme === 'light' ? 'light' : 'dark',
    timeMode: prefs.timeMode === 'absolute' ? 'absolute' : 'relative',
    filterHistory: loadJson<string[]>(HISTORY_KEY, [])
      .filter((h) => typeof h === 'string')
      .slice(0, MAX_HISTORY),
    jobs: [],
    exportDialog: null,
    captureDialog: false,
    notice: null,
    focusFilter: 0,

    async start(api) {
      if (get().api || !api) return
      set({ api })
      api.onEvent(onEvent)
      try {
        const [status, fields] = await Promise.all([api.getStatus(), api.getFields()])
        registerFields(fields)
        set({ status, fields })
        refreshLists()
        await api.setView(get().spec)
      } catch (e) {
        get().notify('error', errorMessage(e))
      }
    },

    async open(path) {
      const api = get().api
      if (!api) return
      try {
        await api.openCapture(path)
      } catch (e) {
        get().notify('error', `Could not open the capture: ${errorMessage(e)}`)
      }
    },

    async chooseFile() {
      const api = get().api
      if (!api?.chooseCapture) return
      try {
        await api.chooseCapture()
      } catch (e) {
        get().notify('error', `Could not open the capture: ${errorMessage(e)}`)
      }
    },

    async applyFilter(text) {
      const filter = text.trim()
      // An invalid filter is never applied nor kept in the history: the bar shows its error instead.
      if (filter) {
        const check = await get().checkFilter(filter)
        if (check && !check.ok) return check
      }
      if (filter) {
        const history = [filter, ...get().filterHistory.filter((h) => h !== filter)].slice(0, MAX_HISTORY)
        set({ filterHistory: history })
        saveJson(HISTORY_KEY, history)
      }
      await pushView({ ...get().spec, filter })
      return null
    },

    async checkFilter(text) {
      const api = get().api
      if (!api) return null
      try {
        const r = await api.checkFilter(text)
        set({ filterCheck: r })
        return r
      } catch {
        return null
      }
    },

    setSort(sort) {
      void pushView({ ...get().spec, sort })
    },

    addColumn(key) {
      const spec = get().spec
      if (spec.columns.includes(key) || spec.columns.length >= 32) return
      void pushView({ ...spec, columns: [...spec.columns, key] })
    },

    removeColumn(key) {
      const spec = get().spec
      const sort = spec.sort?.column === key ? null : spec.sort
      void pushView({ ...spec, sort, columns: spec.columns.filter((c) => c !== key) })
    },

    select(id, mode = 'replace') {
      if (id === null) {
        set({ selectedId: null, picked: [], detail: null, selectedNode: null })
        return
      }
      if (mode === 'toggle') {
        const picked = get().picked.includes(id) ? get().picked.filter((p) => p !== id) : [...get().picked, id]
        set({ picked })
        return
      }
      if (get().selectedId === id && get().detail?.id === id) return
      set({ selectedId: id, picked: [], selectedNode: null, detailError: null })
      loadDetail(id)
    },

    async goToFrame(frame) {
      const api = get().api
      if (!api) return
      try {
        const id = await api.findFrame(frame)
        if (id === null) get().notify('info', `Frame ${frame} carries no message`)
        else get().select(id)
      } catch (e) {
        get().notify('error', errorMessage(e))
      }
    },

    selectRange(focus, ids) {
      const picked = ids.filter((id) => id !== focus)
      if (get().selectedId === focus && get().detail?.id === focus) {
        set({ picked })
        return
      }
      set({ selectedId: focus, picked, selectedNode: null, detailError: null })
      loadDetail(focus)
    },

    selectNode(path) {
      const detail = get().detail
      const node = detail ? nodeAt(detail.tree, path) : undefined
      const expanded = { ...get().expanded }
      if (path) {
        const parts = path.split('/')
        for (let i = 1; i < parts.length; i++) expanded[parts.slice(0, i).join('/')] = true
      }
      set({ selectedNode: path, expanded, ...(node?.source !== undefined ? { hexSource: node.source } : {}) })
    },

    selectByte(source, offset) {
      const detail = get().detail
      if (!detail) return
      get().selectNode(deepestNodeAt(detail.tree, source, offset))
      set({ hexSource: source })
    },

    setHexSource(i) {
      set({ hexSource: i })
    },

    toggleNode(path, open) {
      set((s) => ({ expanded: { ...s.expanded, [path]: open ?? !s.expanded[path] } }))
    },

    expandAll(open) {
      const detail = get().detail
      if (!detail) return
      set({ expanded: open ? expandedFor(detail.tree, Infinity) : {} })
    },

    setPanel(p) {
      set({ panel: get().panel === p ? null : p })
      if (p === 'stats') void get().loadStats()
    },

    setBottomTab(t) {
      set({ bottomTab: t })
    },

    toggleTheme() {
      set({ theme: get().theme === 'dark' ? 'light' : 'dark' })
      savePrefs()
    },

    toggleTimeMode() {
      set({ timeMode: get().timeMode === 'absolute' ? 'relative' : 'absolute' })
      savePrefs()
    },

    async setDecodeAs(rules) {
      const api = get().api
      if (!api) return
      try {
        await api.setDecodeAs(rules)
      } catch (e) {
        get().notify('error', errorMessage(e))
      }
    },

    async addKeys(text) {
      const api = get().api
      if (!api) return null
      try {
        const change = await api.addKeys(text)
        set({ keys: change.keys })
        const note =
          change.added === 0
            ? 'No new keys (already present)'
            : `Added ${plural(change.added, 'key')}${change.redecoded.length ? `; re-decoded conversation${change.redecoded.length === 1 ? '' : 's'} ${change.redecoded.join(', ')}` : ''}`
        get().notify('info', [note, ...change.warnings].join('. '))
        return change.keys
      } catch (e) {
        get().notify('error', errorMessage(e))
        return null
      }
    },

    async removeKey(line) {
      const api = get().api
      if (!api) return
      try {
        const change = await api.removeKey(line)
        set({ keys: change.keys })
      } catch (e) {
        get().notify('error', errorMessage(e))
      }
    },

    async loadStats() {
      const api = get().api
      if (!api) return
      const req = ++statsRequest
      try {
        const stats = await api.getStats({ all: get().statsAll })
        if (req === statsRequest) set({ stats })
      } catch (e) {
        if (req === statsRequest) get().notify('error', errorMessage(e))
      }
    },

    setStatsAll(all) {
      set({ statsAll: all })
      void get().loadStats()
    },

    openExport(format) {
      set({ exportDialog: { format } })
    },

    setCaptureDialog(open) {
      set({ captureDialog: open })
    },
    closeExport() {
      set({ exportDialog: null })
    },

    async startExport(request) {
      const api = get().api
      if (!api) return null
      try {
        const job = await api.startExport(request)
        if (job.state === 'cancelled') return null
        set((s) => ({ jobs: [...s.jobs.filter((j) => j.id !== job.id), job] }))
        return job
      } catch (e) {
        get().notify('error', errorMessage(e))
        return null
      }
    },

    cancelJob(id) {
      void get().api?.cancelJob(id)
    },

    async refreshFields() {
      const api = get().api
      if (!api) return
      try {
        const fields = await api.getFields()
        registerFields(fields)
        set({ fields })
      } catch {
        // the next status change asks again
      }
    },

    notify(kind, text) {
      set({ notice: { kind, text } })
      const shown = get().notice
      setTimeout(
        () => {
          if (get().notice === shown) set({ notice: null })
        },
        kind === 'error' ? 8000 : 4000
      )
    }
  }
})
