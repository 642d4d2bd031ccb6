// Text with its frame references ("→ frame 5", "frames 3, 4", "request in frame 7") as links: a click
// selects the message that frame carries. Used for summaries, and (FrameLink) by the Rooms panel.

import { useInspector } from '../state/store'

// "frame 5" or "frames 3, 4, 9": the numbers after the word are the links.
const REF = /\b(frames? )(\d+(?:, \d+)*)/g

/** One frame number as a link to the message that frame carries, or to `id` when the caller knows which one it means. */
export function FrameLink({ frame, id }: { frame: number; id?: number }) {
  return (
    <a
      className="frame-link"
      role="link"
      data-testid="frame-link"
      data-frame={frame}
      data-message={id}
      title={`Select the message frame ${frame} carries`}
      // The row under the link must not take the click as its own selection.
      onMouseDown={(e) => e.stopPropagation()}
      onClick={(e) => {
        e.stopPropagation()
        if (id !== undefined) useInspector.getState().select(id)
        else void useInspector.getState().goToFrame(frame)
      }}
    >
      {frame}
    </a>
  )
}

export function FrameLinks({ text }: { text: string }) {
  const parts: React.ReactNode[] = []
  let last = 0
  for (const m of text.matchAll(REF)) {
    const at = m.index! + m[1].length
    parts.push(text.slice(last, at))
    m[2].split(', ').forEach((n, i) => {
      if (i) parts.push(', ')
      parts.push(<FrameLink key={`${at}-${i}`} frame={Number(n)} />)
    })
    last = at + m[2].length
  }
  if (last === 0) return <>{text}</>
  parts.push(text.slice(last))
  return <>{parts}</>
}
