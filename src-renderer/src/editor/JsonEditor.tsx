// The JSON view: the message's typed value in a read-only monaco editor (folding, search with Ctrl+F).

import { useEffect, useRef } from 'react'
import { monaco } from './monaco'

export default function JsonEditor({ text, dark }: { text: string; dark: boolean }) {
  const host = useRef<HTMLDivElement>(null)
  const editor = useRef<monaco.editor.IStandaloneCodeEditor | null>(null)

  useEffect(() => {
    const model = monaco.editor.createModel(text, 'json')
    editor.current = monaco.editor.create(host.current!, {
      model,
      readOnly: true,
      theme: dark ? 'gamewire-dark' : 'gamewire-light',
      fontFamily: 'var(--mono)',
      fontSize: 12,
      minimap: { enabled: false },
      folding: true,
      foldingStrategy: 'indentation',
      automaticLayout: true,
      scrollBeyondLastLine: false,
      renderLineHighlight: 'none',
      wordWrap: 'off',
      lineNumbersMinChars: 4
    })
    return () => {
      editor.current?.dispose()
      model.dispose()
    }
  }, [])

  useEffect(() => {
    const ed = editor.current
    if (ed && ed.getValue() !== text) {
      ed.setValue(text)
      ed.setScrollTop(0)
    }
  }, [text])

  useEffect(() => {
    monaco.editor.setTheme(dark ? 'gamewire-dark' : 'gamewire-light')
  }, [dark])

  return <div className="json-editor" ref={host} />
}
