// The JSON view: the selected message's typed value (keys in wire order) in a read-only monaco editor.

import { lazy, Suspense } from 'react'
import { useInspector } from '../state/store'

const JsonEditor = lazy(() => import('../editor/JsonEditor'))

export function JsonView() {
  const detail = useInspector((s) => s.detail)
  const theme = useInspector((s) => s.theme)
  return (
    <div className="json-view" data-testid="json-view" data-message={detail?.id ?? ''}>
      {detail ? (
        <Suspense fallback={<pre className="json-fallback mono">{detail.valueJson}</pre>}>
          <JsonEditor text={detail.valueJson} dark={theme === 'dark'} />
        </Suspense>
      ) : (
        <div className="empty-state small">
          <p>The selected message's typed value appears here.</p>
        </div>
      )}
    </div>
  )
}
