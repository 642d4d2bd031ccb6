// Text with its frame references ("→ frame 5", "frames 3, 4", "request in frame 7") as links: a click
// selects the message that frame carries. Used for summaries, and (FrameLink) by the Rooms panel.

import { useInspector } from '../state/store'
import { activation } from './activation'

// "frame 5" or "frames 3, 4, 9": the numbers after the word are the links.
const REF = /\b(frames? )(\d+(?:, \d+)*)/g

/**
 * One frame number as a link to the message that frame carries, or to `id` when the caller knows which one
 * it means. `tabbable`: Tab reaches it and Enter follows it (a panel's links); in the timeline's rows it is
 * left out of the Tab order, which moves through the grid by rows.
 */
export function FrameLink({ frame, id, tabbable = false }: { frame: number; id?: number; tabbable?: boolean }) {
  // The row under the link must not take the click (or the Enter) as its own selection.
  const follow = (e: React.SyntheticEvent) => {
    e.stopPropagation()
    if (id !== undefined) useInspector.getState().select(id)
    else void useInspector.getState().goToFrame(frame)
  }
  return (
    <a
      className="frame-link"
      {...(tabbable ? activation(follow, 'link') : { role: 'link', onClick: follow })}
      data-testid="frame-link"
      data-frame={frame}
      data-message={id}
      title={`Select the message frame ${frame} carries`}
      onMouseDown={(e) => e.stopPropagation()}
    >
      {frame}
    </a>
  )
}

export function FrameLinks({ text, tabbable = false }: { text: string; tabbable?: boolean }) {
  const parts: React.ReactNode[] = []
  let last = 0
  for (const m of text.matchAll(REF)) {
    const at = m.index! + m[1].length
    parts.push(text.slice(last, at))
    m[2].split(', ').forEach((n, i) => {
      if (i) parts.push(', ')
      parts.push(<FrameLink key={`${at}-${i}`} frame={Number(n)} tabbable={tabbable} />)
    })
    last = at + m[2].length
  }
  if (last === 0) return <>{text}</>
  parts.push(text.slice(last))
  return <>{parts}</>
}
