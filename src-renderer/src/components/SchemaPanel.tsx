// Schemas: import a schema pack (a file, or pasted JSON), list the loaded packs, remove one. Adding or
// removing a pack decodes the open capture again with it (names, summaries, filter fields); a pack that
// does not validate is refused with its JSON path and why, and nothing changes. Packs persist on the host
// next to the keys (docs/schema-packs.md describes the format).

import { useEffect, useRef, useState } from 'react'
import type { SchemaChange, SchemaInfo } from '../../../src-shared/api'
import { MAX_SCHEMA_TEXT } from '../../../src-shared/api-validate'
import { plural } from '../format'
import { errorMessage, useInspector } from '../state/store'

export function SchemaPanel() {
  const api = useInspector((s) => s.api)
  const generation = useInspector((s) => s.status?.generation)
  const [schemas, setSchemas] = useState<SchemaInfo[]>([])
  const [text, setText] = useState('')
  const [busy, setBusy] = useState(false)
  const [refused, setRefused] = useState<string | null>(null)
  const file = useRef<HTMLInputElement>(null)

  // Coverage changes with the open capture.
  useEffect(() => {
    if (!api) return
    let live = true
    void api.listSchemas().then(
      (s) => live && setSchemas(s),
      () => undefined
    )
    return () => {
      live = false
    }
  }, [api, generation])

  const apply = async (run: () => Promise<SchemaChange>, done: (c: SchemaChange) => string) => {
    setBusy(true)
    try {
      const change = await run()
      setSchemas(change.schemas)
      setRefused(null)
      await useInspector.getState().refreshFields()
      useInspector.getState().notify('info', done(change))
      return true
    } catch (e) {
      const message = errorMessage(e)
      // A refused pack: the panel keeps its path and reason in view (a toast would vanish).
      setRefused(message)
      return false
    } finally {
      setBusy(false)
    }
  }

  const redecoded = (c: SchemaChange) => (c.redecoded.length ? `; re-decoded conversation${c.redecoded.length === 1 ? '' : 's'} ${c.redecoded.join(', ')}` : '')

  const add = async (packText: string) => {
    if (!api) return
    if (packText.length > MAX_SCHEMA_TEXT) return setRefused(`the pack is larger than ${MAX_SCHEMA_TEXT >> 20} MiB`)
    const ok = await apply(
      () => api.addSchema(packText),
      (c) => `Loaded ${plural(c.schemas.length, 'schema pack')}${redecoded(c)}`
    )
    if (ok) setText('')
  }

  const importFile = async (f: File | undefined) => {
    if (!f) return
    await add(await f.text())
    if (file.current) file.current.value = ''
  }

  const remove = (id: string) => {
    if (!api) return
    void apply(
      () => api.removeSchema(id),
      (c) => `Removed ${id}${redecoded(c)}`
    )
  }

  return (
    <section className="side-panel schema-panel" data-testid="schema-panel" aria-label="Schema packs">
      <header className="side-head">
        <h2>Schemas</h2>
        <span className="muted">{schemas.length}</span>
        <span className="spacer" />
        <button type="button" className="button small" onClick={() => file.current?.click()} disabled={busy}>
          Import…
        </button>
        <input
          ref={file}
          type="file"
          accept=".json,application/json"
          hidden
          onChange={(e) => void importFile(e.target.files?.[0])}
          data-testid="schema-import"
        />
      </header>
      <form
        className="schema-form"
        onSubmit={(e) => {
          e.preventDefault()
          void add(text)
        }}
      >
        <textarea
          className="mono"
          value={text}
          onChange={(e) => setText(e.target.value)}
          placeholder={'Paste a schema pack: {"format": "gamewire-schema/1", "name": …}'}
          spellCheck={false}
          rows={5}
          data-testid="schema-text"
        />
        <button className="button primary" type="submit" disabled={!text.trim() || busy} data-testid="schema-add">
          {busy ? 'Re-decoding…' : 'Add pack'}
        </button>
      </form>
      {refused && (
        <p className="field-error schema-refused" role="alert" data-testid="schema-error">
          Refused: {refused}
        </p>
      )}
      <ul className="key-list">
        {schemas.length === 0 && (
          <li className="muted pad">No schema packs. A pack names a game's own codes and parameters (see resources/schemas/ for an example).</li>
        )}
        {schemas.map((s) => (
          <li key={s.id} className="key-item" data-testid="schema-item" data-name={s.name}>
            <div className="key-top">
              <span className="strong">{s.name}</span>
              <span className="spacer" />
              <button type="button" className="icon-button" title="Remove this pack" onClick={() => remove(s.id)} disabled={busy} data-testid="schema-remove">
                ✕
              </button>
            </div>
            <div className="mono small">
              {s.protocols.join(', ')} · {s.appliesTo}
            </div>
            <div className="small">{s.contents}</div>
            <div className="muted small">
              {s.covers.length
                ? `applies to conversation${s.covers.length === 1 ? '' : 's'} ${s.covers.join(', ')}`
                : 'applies to no conversation of this capture'}
            </div>
            {s.description && <div className="muted small schema-description">{s.description}</div>}
          </li>
        ))}
      </ul>
    </section>
  )
}
