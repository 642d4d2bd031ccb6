// Hex view: one tab per data source (frame payload, reassembled, decompressed, decrypted). The selected
// tree node's bytes carry data-selected="true"; clicking a byte selects the deepest node holding it.
// Rows are virtualized, so a 100 KB reassembled message stays cheap.

import { useEffect, useMemo, useRef } from 'react'
import { useVirtualizer } from '@tanstack/react-virtual'
import { nodeAt, useInspector } from '../state/store'

const PER_ROW = 16
const ROW_HEIGHT = 20

function fromHex(hex: string): Uint8Array {
  const out = new Uint8Array(hex.length >> 1)
  for (let i = 0; i < out.length; i++) out[i] = parseInt(hex.substr(i * 2, 2), 16)
  return out
}

const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'))

export function HexView() {
  const detail = useInspector((s) => s.detail)
  const selectedNode = useInspector((s) => s.selectedNode)
  const hexSource = useInspector((s) => s.hexSource)
  const { setHexSource, selectByte } = useInspector.getState()
  const scroller = useRef<HTMLDivElement>(null)

  const sources = detail?.sources ?? []
  const current = Math.min(hexSource, Math.max(0, sources.length - 1))
  const bytes = useMemo(() => (sources[current] ? fromHex(sources[current].hex) : new Uint8Array(0)), [detail, current])
  const node = detail ? nodeAt(detail.tree, selectedNode) : undefined
  const range = node && node.source === current && node.start !== undefined && node.length !== undefined ? { start: node.start, end: node.start + node.length } : null
  const rows = Math.ceil(bytes.length / PER_ROW)
  const offsetDigits = Math.max(4, bytes.length.toString(16).length)

  const virtualizer = useVirtualizer({ count: rows, getScrollElement: () => scroller.current, estimateSize: () => ROW_HEIGHT, overscan: 8 })

  useEffect(() => {
    if (range) virtualizer.scrollToIndex(Math.floor(range.start / PER_ROW), { align: 'auto' })
  }, [range?.start, range?.end, current])

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
          <button key={i} role="tab" aria-selected={i === current} className={`tab ${i === current ? 'active' : ''}`} onClick={() => setHexSource(i)} data-testid="hex-tab">
            {s.name} <span className="muted">{s.hex.length / 2} B</span>
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
              const cls = `${sel ? 'sel' : ''} ${sel && !isSel(i - 1) ? 'sel-start' : ''} ${sel && !isSel(i + 1) ? 'sel-end' : ''} ${k === 8 ? 'gap' : ''}`
              cells.push(
                <span key={k} className={`byte ${cls}`} data-offset={i} data-selected={sel ? 'true' : 'false'} onMouseDown={() => selectByte(current, i)}>
                  {HEX[b]}
                </span>
              )
              ascii.push(
                <span key={k} className={`char ${sel ? 'sel' : ''}`} data-offset={i} onMouseDown={() => selectByte(current, i)}>
                  {b >= 0x20 && b < 0x7f ? String.fromCharCode(b) : '·'}
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
