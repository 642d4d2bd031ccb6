// Hex view: one tab per data source (frame payload, reassembled, decompressed, decrypted). The selected
// tree node's bytes carry data-selected="true"; clicking a byte selects the deepest node holding it.
// Rows are virtualized, so a 100 KB reassembled message stays cheap. A source's first bytes come with the
// detail; the rest is fetched a page at a time as it scrolls into view (a decompressed body can be MiBs).

import { useEffect, useMemo, useRef, useState } from 'react'
import { useVirtualizer } from '@tanstack/react-virtual'
import { nodeAt, useInspector } from '../state/store'
import type { MessageDetail } from '../../../src-shared/api'

/** Bytes fetched per request beyond the inline part. */
const PAGE = 64 << 10

const PER_ROW = 16
const ROW_HEIGHT = 20

function fromHex(hex: string): Uint8Array {
  const out = new Uint8Array(hex.length >> 1)
  for (let i = 0; i < out.length; i++) out[i] = parseInt(hex.substr(i * 2, 2), 16)
  return out
}

const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'))

/** One source's bytes as far as they have arrived: `loaded` marks PAGE-sized pages that are in. */
interface SourceBytes {
  bytes: Uint8Array
  loaded: Set<number>
  inline: number
}

function initialBytes(s: MessageDetail['sources'][number]): SourceBytes {
  const bytes = new Uint8Array(s.length)
  const head = fromHex(s.hex)
  bytes.set(head.subarray(0, s.length))
  return { bytes, loaded: new Set(), inline: head.length }
}

const isLoaded = (sb: SourceBytes, i: number): boolean => i < sb.inline || sb.loaded.has(Math.floor((i - sb.inline) / PAGE))

export function HexView() {
  const detail = useInspector((s) => s.detail)
  const selectedNode = useInspector((s) => s.selectedNode)
  const hexSource = useInspector((s) => s.hexSource)
  const { setHexSource, selectByte } = useInspector.getState()
  const scroller = useRef<HTMLDivElement>(null)

  const sources = detail?.sources ?? []
  const current = Math.min(hexSource, Math.max(0, sources.length - 1))
  const sb = useMemo(
    () => (sources[current] ? initialBytes(sources[current]) : { bytes: new Uint8Array(0), loaded: new Set<number>(), inline: 0 }),
    [detail, current]
  )
  const bytes = sb.bytes
  const [, pageArrived] = useState(0)
  const asked = useRef(new Set<string>())
  const node = detail ? nodeAt(detail.tree, selectedNode) : undefined
  const range =
    node && node.source === current && node.start !== undefined && node.length !== undefined ? { start: node.start, end: node.start + node.length } : null
  const rows = Math.ceil(bytes.length / PER_ROW)
  const offsetDigits = Math.max(4, bytes.length.toString(16).length)

  const virtualizer = useVirtualizer({ count: rows, getScrollElement: () => scroller.current, estimateSize: () => ROW_HEIGHT, overscan: 8 })

  useEffect(() => {
    if (range) virtualizer.scrollToIndex(Math.floor(range.start / PER_ROW), { align: 'auto' })
  }, [range?.start, range?.end, current])

  // Pages of the visible rows that have not arrived yet: ask for each once.
  const visible = virtualizer.getVirtualItems()
  const firstByte = (visible[0]?.index ?? 0) * PER_ROW
  const lastByte = ((visible[visible.length - 1]?.index ?? 0) + 1) * PER_ROW
  useEffect(() => {
    const api = useInspector.getState().api
    if (!detail || !api || lastByte <= sb.inline) return
    const id = detail.id
    for (let p = Math.floor(Math.max(0, firstByte - sb.inline) / PAGE); sb.inline + p * PAGE < Math.min(lastByte, bytes.length); p++) {
      const key = `${id}:${current}:${p}`
      if (sb.loaded.has(p) || asked.current.has(key)) continue
      asked.current.add(key)
      api.getSourceBytes(id, current, sb.inline + p * PAGE, PAGE).then(
        (page) => {
          sb.bytes.set(fromHex(page.hex).subarray(0, Math.max(0, sb.bytes.length - page.offset)), page.offset)
          sb.loaded.add(p)
          pageArrived((n) => n + 1)
        },
        () => asked.current.delete(key)
      )
    }
  }, [sb, firstByte, lastByte])

  if (!detail) {
    return (
      <div className="hex-view" data-testid="hex-view">
        <div className="empty-state small">
          <p>The selected message's bytes appear here.</p>
        </div>
      </div>
    )
  }
  const isSel = (i: number) => range !== null && i >= range.start && i < range.end
  return (
    <div className="hex-view" data-testid="hex-view" data-source={current}>
      <div className="tabs" role="tablist">
        {sources.map((s, i) => (
          <button
            type="button"
            key={i}
            role="tab"
            aria-selected={i === current}
            className={`tab ${i === current ? 'active' : ''}`}
            onClick={() => setHexSource(i)}
            data-testid="hex-tab"
          >
            {s.name} <span className="muted">{s.length} B</span>
          </button>
        ))}
        {range && (
          <span className="hex-range muted">
            {range.end - range.start} byte{range.end - range.start === 1 ? '' : 's'} at 0x{range.start.toString(16)}
          </span>
        )}
      </div>
      <div className="hex-body mono" ref={scroller}>
        {/* rows are absolutely placed: give the box their width so it scrolls sideways when narrow */}
        <div style={{ height: virtualizer.getTotalSize(), position: 'relative', width: `calc(${offsetDigits + 3 + PER_ROW * 4 + 2}ch + 52px)` }}>
          {virtualizer.getVirtualItems().map((item) => {
            const base = item.index * PER_ROW
            const cells: React.ReactNode[] = []
            const ascii: React.ReactNode[] = []
            for (let k = 0; k < PER_ROW; k++) {
              const i = base + k
              if (i >= bytes.length) break
              const b = bytes[i]
              const sel = isSel(i)
              const here = isLoaded(sb, i)
              const cls = `${sel ? 'sel' : ''} ${sel && !isSel(i - 1) ? 'sel-start' : ''} ${sel && !isSel(i + 1) ? 'sel-end' : ''} ${k === 8 ? 'gap' : ''}`
              cells.push(
                <span key={k} className={`byte ${cls}`} data-offset={i} data-selected={sel ? 'true' : 'false'} onMouseDown={() => selectByte(current, i)}>
                  {here ? HEX[b] : '··'}
                </span>
              )
              ascii.push(
                <span key={k} className={`char ${sel ? 'sel' : ''}`} data-offset={i} onMouseDown={() => selectByte(current, i)}>
                  {here && b >= 0x20 && b < 0x7f ? String.fromCharCode(b) : '·'}
                </span>
              )
            }
            return (
              <div key={item.key} className="hex-row" style={{ transform: `translateY(${item.start}px)` }}>
                <span className="offset">{base.toString(16).padStart(offsetDigits, '0')}</span>
                <span className="bytes">{cells}</span>
                <span className="ascii">{ascii}</span>
              </div>
            )
          })}
        </div>
      </div>
    </div>
  )
}
