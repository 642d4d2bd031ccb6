// Keys: add a key per protocol and conversation (hex or base64), import/export a key file, remove.
// Adding a key re-decodes the conversations it covers at once; keys persist on the host and are never
// written into exports unless asked.

import { useEffect, useRef, useState } from 'react'
import type { ConversationInfo } from '../../../src-shared/model/types'
import { filteredConversation, num, plural } from '../format'
import { useInspector } from '../state/store'

type KeyType = 'PHOTON_AES_KEY' | 'PHOTON_SECRET' | 'PHOTON_DH_PRIVATE' | 'SFS2X_AES' | 'FIGNET_KEY'

const TYPES: { type: KeyType; label: string; protocol: string; bytes?: number; iv?: boolean; direction?: boolean }[] = [
  { type: 'PHOTON_AES_KEY', label: 'Photon AES-256 key', protocol: 'photon', bytes: 32 },
  { type: 'PHOTON_SECRET', label: 'Photon DH shared secret', protocol: 'photon' },
  { type: 'PHOTON_DH_PRIVATE', label: 'Photon DH private key', protocol: 'photon' },
  { type: 'SFS2X_AES', label: 'SFS2X AES-128 key + IV', protocol: 'sfs2x', bytes: 16, iv: true },
  { type: 'FIGNET_KEY', label: 'FigNet ChaCha20 key', protocol: 'fignet', bytes: 32, direction: true }
]

/** Hex from a hex or base64 paste (spaces, colons and 0x allowed in hex). */
export function keyHex(text: string): string | null {
  const t = text.trim()
  if (!t) return null
  const hex = t.replace(/^0x/i, '').replace(/[\s:-]/g, '')
  if (/^[0-9a-fA-F]+$/.test(hex) && hex.length % 2 === 0) return hex.toLowerCase()
  if (/^[A-Za-z0-9+/_-]+={0,2}$/.test(t.replace(/\s/g, ''))) {
    try {
      const bin = atob(t.replace(/\s/g, '').replace(/-/g, '+').replace(/_/g, '/'))
      return Array.from(bin, (c) => c.charCodeAt(0).toString(16).padStart(2, '0')).join('')
    } catch {
      return null
    }
  }
  return null
}

/**
 * Conversations the choice lists at most (a choice of 200,000 took 10.7 s to show). The one the timeline is
 * filtered to (a click in the Conversations panel) comes first, so any conversation can be picked.
 */
const MAX_CHOICES = 1000

export function KeyPanel() {
  const keys = useInspector((s) => s.keys)
  const api = useInspector((s) => s.api)
  const listsVersion = useInspector((s) => s.listsVersion)
  const status = useInspector((s) => s.status)
  const filter = useInspector((s) => s.spec.filter)
  const { addKeys, removeKey, notify } = useInspector.getState()
  const [type, setType] = useState<KeyType>('PHOTON_AES_KEY')
  const [conv, setConv] = useState('*')
  const [direction, setDirection] = useState('both')
  const [key, setKey] = useState('')
  const [iv, setIv] = useState('')
  const [busy, setBusy] = useState(false)
  const file = useRef<HTMLInputElement>(null)
  const spec = TYPES.find((t) => t.type === type)!
  const [convOptions, setConvOptions] = useState<{ list: ConversationInfo[]; more: number }>({ list: [], more: 0 })
  // The host lists those the key type fits (a FigNet key: any transport may carry FigNet), the filtered one first.
  const filtered = filteredConversation(filter)
  useEffect(() => {
    if (!api) return
    let current = true
    const protocols = spec.protocol === 'fignet' ? undefined : [spec.protocol, 'unknown']
    api.getConversationPage({ start: 0, count: MAX_CHOICES, protocols, first: filtered ?? undefined }).then(
      (page) => current && setConvOptions({ list: page.conversations, more: page.total - page.conversations.length }),
      () => undefined
    )
    return () => {
      current = false
    }
  }, [api, spec.protocol, filtered, listsVersion, status?.generation, status?.conversations])
  const keyBytes = keyHex(key)
  const ivBytes = keyHex(iv)
  const keyProblem = !key.trim()
    ? null
    : !keyBytes
      ? 'not hex or base64'
      : spec.bytes && keyBytes.length !== spec.bytes * 2
        ? `needs ${spec.bytes} bytes, got ${plural(keyBytes.length / 2, 'byte')}`
        : null
  const ivProblem =
    !spec.iv || !iv.trim() ? null : !ivBytes ? 'not hex or base64' : ivBytes.length !== 32 ? `needs 16 bytes, got ${plural(ivBytes.length / 2, 'byte')}` : null
  const ready = !!keyBytes && !keyProblem && (!spec.iv || (!!ivBytes && !ivProblem))

  const add = async () => {
    if (!ready) return
    const parts = [type, conv]
    if (spec.direction) parts.push(direction)
    parts.push(keyBytes!)
    if (spec.iv) parts.push(ivBytes!)
    setBusy(true)
    const result = await addKeys(parts.join(' '))
    setBusy(false)
    if (result) {
      setKey('')
      setIv('')
    }
  }

  const importFile = async (f: File | undefined) => {
    if (!f) return
    if (f.size > 1 << 20) return notify('error', 'That key file is larger than 1 MiB')
    setBusy(true)
    await addKeys(await f.text())
    setBusy(false)
    if (file.current) file.current.value = ''
  }

  const exportFile = async () => {
    const api = useInspector.getState().api
    if (!api) return
    const text = await api.exportKeys()
    const url = URL.createObjectURL(new Blob([text], { type: 'text/plain' }))
    const a = document.createElement('a')
    a.href = url
    a.download = 'gamewire-keys.txt'
    a.click()
    setTimeout(() => URL.revokeObjectURL(url), 1000)
  }

  return (
    <section className="side-panel" data-testid="key-panel" aria-label="Keys">
      <header className="side-head">
        <h2>Keys</h2>
        <span className="muted">{keys.length}</span>
        <span className="spacer" />
        <button type="button" className="button small" onClick={() => file.current?.click()} disabled={busy}>
          Import…
        </button>
        <button type="button" className="button small" onClick={() => void exportFile()} disabled={keys.length === 0}>
          Export…
        </button>
        <input
          ref={file}
          type="file"
          accept=".txt,.log,.keys,text/plain"
          hidden
          onChange={(e) => void importFile(e.target.files?.[0])}
          data-testid="key-import"
        />
      </header>
      <form
        className="key-form"
        onSubmit={(e) => {
          e.preventDefault()
          void add()
        }}
      >
        <label>
          <span>Type</span>
          <select value={type} onChange={(e) => setType(e.target.value as KeyType)} data-testid="key-type">
            {TYPES.map((t) => (
              <option key={t.type} value={t.type}>
                {t.label}
              </option>
            ))}
          </select>
        </label>
        <label>
          <span>Conversation</span>
          <select value={conv} onChange={(e) => setConv(e.target.value)} data-testid="key-conversation">
            <option value="*">Any conversation (*)</option>
            {convOptions.list.map((c) => (
              <option key={c.id} value={`${c.client}-${c.server}`}>
                #{c.id} {c.client} ⇄ {c.server}
              </option>
            ))}
            {convOptions.more > 0 && (
              <option disabled value="" data-testid="key-conversation-more">
                … {num(convOptions.more)} more: click one in Conversations to list it first
              </option>
            )}
          </select>
        </label>
        {spec.direction && (
          <label>
            <span>Direction</span>
            <select value={direction} onChange={(e) => setDirection(e.target.value)}>
              <option value="both">both</option>
              <option value="c2s">c2s</option>
              <option value="s2c">s2c</option>
            </select>
          </label>
        )}
        <label className="wide">
          <span>Key {spec.bytes ? `(${spec.bytes} bytes)` : ''}</span>
          <input
            className="mono"
            value={key}
            onChange={(e) => setKey(e.target.value)}
            placeholder="hex or base64"
            spellCheck={false}
            autoComplete="off"
            data-testid="key-value"
          />
          {keyProblem && <em className="field-error">{keyProblem}</em>}
        </label>
        {spec.iv && (
          <label className="wide">
            <span>IV (16 bytes)</span>
            <input
              className="mono"
              value={iv}
              onChange={(e) => setIv(e.target.value)}
              placeholder="hex or base64"
              spellCheck={false}
              autoComplete="off"
              data-testid="key-iv"
            />
            {ivProblem && <em className="field-error">{ivProblem}</em>}
          </label>
        )}
        <button className="button primary" type="submit" disabled={!ready || busy} data-testid="key-add">
          {busy ? 'Re-decoding…' : 'Add key'}
        </button>
      </form>
      <ul className="key-list">
        {keys.length === 0 && <li className="muted pad">No keys yet. Keys are stored on this machine and never exported unless you ask.</li>}
        {keys.map((k) => (
          <li key={k.line} className="key-item" data-testid="key-item">
            <div className="key-top">
              <span className="mono strong">{k.type}</span>
              <span className="spacer" />
              <button type="button" className="icon-button" title="Remove this key" onClick={() => void removeKey(k.line)}>
                ✕
              </button>
            </div>
            <div className="mono small">
              {k.conversation}
              {k.direction ? ` · ${k.direction}` : ''}
            </div>
            <div className="muted small">
              {k.covers.length ? `covers conversation${k.covers.length === 1 ? '' : 's'} ${k.covers.join(', ')}` : 'covers no conversation of this capture'}
            </div>
          </li>
        ))}
      </ul>
    </section>
  )
}
