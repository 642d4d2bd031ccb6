// The filter bar's one-line monaco editor: filter-language highlighting, autocomplete of field keys and
// named values, the host's parse error shown inline (squiggle + message), Enter applies, Tab completes.

import { useEffect, useRef } from 'react'
import { FILTER_LANGUAGE, monaco } from './monaco'

export interface FilterEditorProps {
  /** Text set from outside (an applied filter, a history pick); `n` changes each time it is set. */
  external: { text: string; n: number }
  dark: boolean
  focusSignal: number
  error: { message: string; start: number; end: number } | null
  onChange(text: string): void
  onApply(text: string): void
}

export default function FilterEditor(props: FilterEditorProps) {
  const host = useRef<HTMLDivElement>(null)
  const editor = useRef<monaco.editor.IStandaloneCodeEditor | null>(null)
  const latest = useRef(props)
  latest.current = props

  useEffect(() => {
    const el = host.current!
    const model = monaco.editor.createModel(props.external.text, FILTER_LANGUAGE)
    const ed = monaco.editor.create(el, {
      model,
      theme: props.dark ? 'gamewire-dark' : 'gamewire-light',
      fontFamily: 'var(--mono)',
      fontSize: 13,
      lineHeight: 26,
      lineNumbers: 'off',
      glyphMargin: false,
      folding: false,
      lineDecorationsWidth: 6,
      lineNumbersMinChars: 0,
      minimap: { enabled: false },
      scrollbar: { vertical: 'hidden', horizontal: 'hidden', handleMouseWheel: false, alwaysConsumeMouseWheel: false },
      overviewRulerLanes: 0,
      overviewRulerBorder: false,
      hideCursorInOverviewRuler: true,
      renderLineHighlight: 'none',
      wordWrap: 'off',
      scrollBeyondLastLine: false,
      scrollBeyondLastColumn: 0,
      fixedOverflowWidgets: true,
      contextmenu: false,
      automaticLayout: true,
      quickSuggestions: { other: true, strings: false, comments: false },
      suggestOnTriggerCharacters: true,
      wordBasedSuggestions: 'off',
      ariaLabel: 'Display filter',
      placeholder: 'Filter: e.g. photon.op.code == 253 && gamewire.direction == "c2s"'
    })
    editor.current = ed
    // Enter applies what is typed. Only when the user moved into the suggestion list with the arrow keys
    // does Enter take the highlighted suggestion (Tab always does): a list that merely popped up while
    // typing a value must not turn `… == 1` into a field name.
    let chose = false
    const suggesting = () => !!el.querySelector('.suggest-widget.visible')
    ed.onKeyDown((e) => {
      if ((e.keyCode === monaco.KeyCode.DownArrow || e.keyCode === monaco.KeyCode.UpArrow) && suggesting()) chose = true
      if (e.keyCode === monaco.KeyCode.Escape) chose = false
      if (e.keyCode !== monaco.KeyCode.Enter) return
      if (chose && suggesting()) {
        chose = false
        return // monaco accepts the highlighted suggestion
      }
      e.preventDefault()
      e.stopPropagation()
      chose = false
      ed.trigger('filter-bar', 'hideSuggestWidget', null)
      latest.current.onApply(model.getValue())
    })
    // One line only: pasted newlines become spaces.
    model.onDidChangeContent(() => {
      chose = false
      const v = model.getValue()
      if (/[\r\n]/.test(v)) {
        model.setValue(v.replace(/[\r\n]+/g, ' '))
        return
      }
      latest.current.onChange(v)
    })
    return () => {
      ed.dispose()
      model.dispose()
    }
  }, [])

  // The editor owns its text while the user types (echoing it back through props would lose keystrokes
  // typed between renders); only an outside change is written into it.
  useEffect(() => {
    const ed = editor.current
    const text = props.external.text
    if (ed && ed.getValue() !== text) {
      ed.setValue(text)
      ed.setPosition({ lineNumber: 1, column: text.length + 1 })
    }
  }, [props.external.n])

  useEffect(() => {
    monaco.editor.setTheme(props.dark ? 'gamewire-dark' : 'gamewire-light')
  }, [props.dark])

  useEffect(() => {
    if (props.focusSignal) editor.current?.focus()
  }, [props.focusSignal])

  useEffect(() => {
    const model = editor.current?.getModel()
    if (!model) return
    const e = props.error
    monaco.editor.setModelMarkers(
      model,
      'filter',
      e
        ? [
            {
              severity: monaco.MarkerSeverity.Error,
              message: e.message,
              startLineNumber: 1,
              endLineNumber: 1,
              startColumn: e.start + 1,
              endColumn: Math.max(e.end, e.start + 1) + 1
            }
          ]
        : []
    )
  }, [props.error])

  return <div className="filter-editor" ref={host} />
}
