// Monaco, loaded lazily (only the filter bar and the JSON view import this module). Workers come from
// Vite's ?worker imports (monaco 0.56+ paths); the filter language is tokenized by the engine's own
// lexer, so highlighting always agrees with what the host will parse.

import * as monaco from 'monaco-editor/editor'
import 'monaco-editor/features/register.all'
import 'monaco-editor/languages/features/json/register'
import EditorWorker from 'monaco-editor/editor/editor.worker?worker'
import JsonWorker from 'monaco-editor/languages/features/json/json.worker?worker'
import { tokenize } from '../../../src-shared/filter/lexer'
import { lookupField } from '../../../src-shared/bytes/fields'
import { useInspector } from '../state/store'

self.MonacoEnvironment = {
  getWorker(_workerId: string, label: string): Worker {
    if (label === 'json') return new JsonWorker()
    return new EditorWorker()
  }
}

export const FILTER_LANGUAGE = 'gamewire-filter'

const TOKEN_SCOPE: Record<string, string> = {
  field: 'field',
  name: 'name',
  function: 'function',
  operator: 'operator',
  keyword: 'keyword',
  number: 'number',
  string: 'string',
  bytes: 'bytes',
  address: 'address',
  slice: 'number',
  paren: 'delimiter',
  brace: 'delimiter',
  bracket: 'delimiter',
  comma: 'delimiter',
  error: 'invalid'
}

const KEYWORDS = ['and', 'or', 'not', 'xor', 'in', 'contains', 'matches', 'true', 'false']
const FUNCTIONS = ['len', 'count', 'lower', 'upper']

// A filter is one line: the tokenizer carries no state between lines.
const NO_STATE: monaco.languages.IState = { clone: () => NO_STATE, equals: () => true }

monaco.languages.register({ id: FILTER_LANGUAGE })
monaco.languages.setTokensProvider(FILTER_LANGUAGE, {
  getInitialState: () => NO_STATE,
  tokenize(line, state) {
    const tokens: monaco.languages.IToken[] = []
    let at = 0
    for (const t of tokenize(line)) {
      if (t.start > at) tokens.push({ startIndex: at, scopes: 'white' })
      tokens.push({ startIndex: t.start, scopes: `${TOKEN_SCOPE[t.kind] ?? 'white'}.filter` })
      at = t.end
    }
    return { tokens, endState: state }
  }
})

/** Values offered after `field ==` for fields whose values are words rather than named codes. */
const WORD_VALUES: Record<string, readonly string[]> = {
  'gamewire.direction': ['c2s', 's2c', 'a2b', 'b2a'],
  'gamewire.protocol': ['photon', 'sfs2x', 'fignet', 'enet', 'litenetlib', 'unknown']
}

const FIELD_WORD = '[A-Za-z_][A-Za-z0-9_.\\-]*'
/** `field op partial-word` at the cursor: the comparison whose value is being typed. */
const AFTER_COMPARISON = new RegExp(`(${FIELD_WORD})\\s*(==|!=|eq|ne|in\\s*\\{[^}]*)\\s*([A-Za-z_][A-Za-z0-9_]*)?$`)
/** A complete value right before the cursor (number, quoted string, bytes, closing bracket): nothing to suggest. */
const AFTER_VALUE = /(?:(?:==|!=|<=|>=|<|>|eq|ne|lt|gt|le|ge|contains|matches)\s*(?:-?[0-9][0-9A-Fa-fxX.:]*|"(?:[^"\\]|\\.)*"?)|[)\]}"])\s*$/

/**
 * Suggestions: field keys while a field name is typed; after `field ==` that field's named values (or
 * direction/protocol words) and nothing else; nothing after a complete value, so a list never sits open
 * over a value the user is about to apply with Enter.
 */
export function filterSuggestions(
  before: string
): { kind: 'values'; field: string; values: [label: string, detail: string][] } | { kind: 'fields'; prefix: string } | { kind: 'none' } {
  const cmp = AFTER_COMPARISON.exec(before)
  if (cmp) {
    const words = WORD_VALUES[cmp[1]]
    const values: [string, string][] = words
      ? words.map((w) => [w, cmp[1]])
      : Object.entries(lookupField(cmp[1])?.names ?? {}).map(([code, name]) => [String(name), `${cmp[1]} = ${code}`])
    return values.length ? { kind: 'values', field: cmp[1], values } : { kind: 'none' }
  }
  if (AFTER_VALUE.test(before)) return { kind: 'none' }
  const word = new RegExp(`${FIELD_WORD}$`).exec(before)?.[0] ?? ''
  // Right after an operator or at a blank start there is no name typed yet: wait for one.
  if (!word) return { kind: 'none' }
  return { kind: 'fields', prefix: word }
}

monaco.languages.registerCompletionItemProvider(FILTER_LANGUAGE, {
  triggerCharacters: ['.', ' ', '='],
  provideCompletionItems(model, position) {
    const line = model.getLineContent(position.lineNumber)
    const before = line.slice(0, position.column - 1)
    const word = /[A-Za-z_][A-Za-z0-9_.-]*$/.exec(before)?.[0] ?? ''
    const range = new monaco.Range(position.lineNumber, position.column - word.length, position.lineNumber, position.column)
    const want = filterSuggestions(before)
    const suggestions: monaco.languages.CompletionItem[] = []
    if (want.kind === 'values') {
      for (const [label, detail] of want.values)
        suggestions.push({ label, detail, kind: monaco.languages.CompletionItemKind.EnumMember, insertText: label, range })
      return { suggestions }
    }
    if (want.kind === 'none') return { suggestions }
    const fields = useInspector.getState().fields
    const prefix = want.prefix.toLowerCase()
    for (const f of fields) {
      if (!f.key.toLowerCase().startsWith(prefix) && !f.key.toLowerCase().includes(`.${prefix}`)) continue
      suggestions.push({
        label: f.key,
        detail: `${f.name} (${f.type})`,
        kind: monaco.languages.CompletionItemKind.Field,
        insertText: f.key,
        range,
        sortText: f.key
      })
      if (suggestions.length > 400) break
    }
    for (const k of KEYWORDS)
      if (k.startsWith(prefix)) suggestions.push({ label: k, kind: monaco.languages.CompletionItemKind.Keyword, insertText: k, range, sortText: `~${k}` })
    for (const fn of FUNCTIONS)
      if (fn.startsWith(prefix))
        suggestions.push({
          label: `${fn}()`,
          kind: monaco.languages.CompletionItemKind.Function,
          insertText: `${fn}($0)`,
          insertTextRules: monaco.languages.CompletionItemInsertTextRule.InsertAsSnippet,
          range,
          sortText: `~~${fn}`
        })
    return { suggestions }
  }
})

const filterRules = (dark: boolean): monaco.editor.ITokenThemeRule[] => [
  { token: 'field.filter', foreground: dark ? '7cc4ff' : '0b63b6' },
  { token: 'name.filter', foreground: dark ? 'e5b567' : '9a5b00' },
  { token: 'function.filter', foreground: dark ? 'c792ea' : '7a3eb1' },
  { token: 'operator.filter', foreground: dark ? 'ff9e7a' : 'b0431f' },
  { token: 'keyword.filter', foreground: dark ? 'ff79c6' : 'b0246e', fontStyle: 'bold' },
  { token: 'number.filter', foreground: dark ? 'b5e07f' : '3c7a0c' },
  { token: 'string.filter', foreground: dark ? 'c3e88d' : '2f7d32' },
  { token: 'bytes.filter', foreground: dark ? 'f78c6c' : 'a44a1f' },
  { token: 'address.filter', foreground: dark ? '89ddff' : '00728f' },
  { token: 'delimiter.filter', foreground: dark ? 'a0a8b8' : '5c6370' },
  { token: 'invalid.filter', foreground: dark ? 'ff5370' : 'd32f2f', fontStyle: 'underline' }
]

// One theme per mode (monaco themes are global): transparent backgrounds, the panels paint their own.
monaco.editor.defineTheme('gamewire-dark', {
  base: 'vs-dark',
  inherit: true,
  rules: filterRules(true),
  colors: { 'editor.background': '#00000000', 'editor.lineHighlightBackground': '#00000000', focusBorder: '#00000000' }
})
monaco.editor.defineTheme('gamewire-light', {
  base: 'vs',
  inherit: true,
  rules: filterRules(false),
  colors: { 'editor.background': '#00000000', 'editor.lineHighlightBackground': '#00000000', focusBorder: '#00000000' }
})

export { monaco }
