// A draggable divider between two panes; reports the new size of the first pane in pixels.

import { useRef } from 'react'

export function Splitter({ direction, onResize }: { direction: 'row' | 'column'; onResize(delta: number): void }) {
  const last = useRef(0)
  return (
    <div
      className={`splitter ${direction}`}
      role="separator"
      aria-orientation={direction === 'row' ? 'vertical' : 'horizontal'}
      onMouseDown={(e) => {
        e.preventDefault()
        last.current = direction === 'row' ? e.clientX : e.clientY
        const move = (ev: MouseEvent) => {
          const pos = direction === 'row' ? ev.clientX : ev.clientY
          onResize(pos - last.current)
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
