import type React from 'react'

/**
 * Props that make an element that is not a <button> or <a href> work like one: reachable by Tab, run by a
 * click and by Enter (a button also by Space, as the native ones are). Keys pressed in a control inside it
 * (the conversation entry's protocol menu) stay that control's.
 */
export function activation(run: (e: React.SyntheticEvent) => void, role: 'button' | 'link' = 'button') {
  return {
    role,
    tabIndex: 0,
    onClick: run,
    onKeyDown: (e: React.KeyboardEvent) => {
      if (e.target !== e.currentTarget) return
      if (e.key === 'Enter' || (role === 'button' && e.key === ' ')) {
        e.preventDefault()
        run(e)
      }
    }
  }
}
