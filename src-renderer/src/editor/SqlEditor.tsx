// The Query panel's SQL editor: monaco (the app's one setup, editor/monaco.ts) with its SQL highlighting,
// completion of the tables' and columns' names, and Ctrl+Enter (Cmd+Enter) to run.

import 'monaco-editor/languages/definitions/sql/register'
import { useEffect, useRef } from 'react'
import type { QueryTable } from '../../../src-shared/api'
import { monaco } from './monaco'

export interface SqlEditorProps {
  initial: string
  dark: boolean
  tables: QueryTable[]
  onChange(text: string): void
  onRun(text: string): void
}

/** The tables the completion offers (set by the mounted editor; monaco's providers are global). */
let known: QueryTable[] = []
let provider: monaco.IDisposable | null = null

function registerCompletion(): void {
  if (provider) return
  provider = monaco.languages.registerCompletionItemProvider('sql', {
    provideCompletionItems(model, position) {
      const word = model.getWordUntilPosition(position)
      const range = new monaco.Range(position.lineNumber, word.startColumn, position.lineNumber, word.endColumn)
      const suggestions: monaco.languages.CompletionItem[] = []
      const K = monaco.languages.CompletionItemKind
      for (const t of known) {
        suggestions.push({ label: t.name, kind: K.Struct, detail: t.doc, insertText: t.name, range, sortText: `0${t.name}` })
        for (const c of t.columns)
          suggestions.push({
            label: c.name,
            kind: K.Field,
            detail: `${t.name}.${c.name} ${c.type}: ${c.doc}`,
            insertText: c.name,
            range,
            sortText: `1${c.name}`
          })
      }
      return { suggestions }
    }
  })
}

export default function SqlEditor(props: SqlEditorProps) {
  const host = useRef<HTMLDivElement>(null)
  const editor = useRef<monaco.editor.IStandaloneCodeEditor | null>(null)
  const latest = useRef(props)
  latest.current = props
  known = props.tables

  useEffect(() => {
    registerCompletion()
    const model = monaco.editor.createModel(props.initial, 'sql')
    const ed = monaco.editor.create(host.current!, {
      model,
      theme: props.dark ? 'gamewire-dark' : 'gamewire-light',
      fontFamily: 'var(--mono)',
      fontSize: 12,
      minimap: { enabled: false },
      automaticLayout: true,
      scrollBeyondLastLine: false,
      renderLineHighlight: 'none',
      wordWrap: 'on',
      lineNumbersMinChars: 3,
      fixedOverflowWidgets: true,
      wordBasedSuggestions: 'off',
      ariaLabel: 'SQL'
    })
    editor.current = ed
    ed.addCommand(monaco.KeyMod.CtrlCmd | monaco.KeyCode.Enter, () => latest.current.onRun(ed.getValue()))
    const sub = ed.onDidChangeModelContent(() => latest.current.onChange(ed.getValue()))
    return () => {
      sub.dispose()
      ed.dispose()
      model.dispose()
    }
  }, [])

  useEffect(() => {
    monaco.editor.setTheme(props.dark ? 'gamewire-dark' : 'gamewire-light')
  }, [props.dark])

  return <div className="sql-editor" ref={host} data-testid="sql-editor" />
}
