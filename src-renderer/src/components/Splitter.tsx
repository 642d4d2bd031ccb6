// A draggable divider between two panes; reports the new size of the first pane in pixels.

import { useRef } from 'react'

export function Splitter({ direction, onResize, testid }: { direction: 'row' | 'column'; onResize(delta: number): void; testid?: string }) {
  const last = useRef(0)
  // The move handler lives for the whole drag: call the latest onResize, not the one of the mousedown render.
  const latest = useRef(onResize)
  latest.current = onResize
  return (
    <div
      className={`splitter ${direction}`}
      data-testid={testid}
      role="separator"
      aria-orientation={direction === 'row' ? 'vertical' : 'horizontal'}
      onMouseDown={(e) => {
        e.preventDefault()
        last.current = direction === 'row' ? e.clientX : e.clientY
        const move = (ev: MouseEvent) => {
          const pos = direction === 'row' ? ev.clientX : ev.clientY
          latest.current(pos - last.current)
          last.current = pos
        }
        const up = () => {
          window.removeEventListener('mousemove', move)
          window.removeEventListener('mouseup', up)
          document.body.classList.remove('resizing')
        }
        document.body.classList.add('resizing')
        window.addEventListener('mousemove', move)
        window.addEventListener('mouseup', up)
      }}
    />
  )
}
