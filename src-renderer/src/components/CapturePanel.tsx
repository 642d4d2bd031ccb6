// Live capture: pick a device (loopback / up / carrying traffic marked), presets and a BPF filter
// (libpcap's complaint shown inline), options, then start / stop / restart, and save the frames as pcapng.
// A floating panel, so the timeline filling up stays visible behind it.

import { useEffect, useState } from 'react'
import type { CaptureDeviceList, CaptureOptions } from '../../../src-shared/api'
import { num, plural } from '../format'
import { errorMessage, useInspector } from '../state/store'

export function CapturePanel() {
  const open = useInspector((s) => s.captureDialog)
  return open ? <CaptureForm /> : null
}

function deviceLabel(d: CaptureDeviceList['devices'][number]): string {
  const marks = [d.loopback ? 'loopback' : '', d.up === false ? 'down' : d.up ? 'up' : '', d.traffic ? 'traffic' : ''].filter(Boolean)
  return `${d.name} — ${d.friendlyName}${marks.length ? ` [${marks.join(', ')}]` : ''}${d.addresses.length ? ` ${d.addresses.slice(0, 2).join(' ')}` : ''}`
}

function CaptureForm() {
  const api = useInspector((s) => s.api)
  const cap = useInspector((s) => s.status?.captureState)
  const { setCaptureDialog, notify } = useInspector.getState()
  const [list, setList] = useState<CaptureDeviceList | null>(null)
  const [listError, setListError] = useState<string | null>(null)
  const [device, setDevice] = useState('')
  const [presets, setPresets] = useState<string[]>([])
  const [presetPorts, setPresetPorts] = useState<Record<string, string>>({})
  const [filter, setFilter] = useState(cap?.filter ?? '')
  const [promiscuous, setPromiscuous] = useState(true)
  const [snapLen, setSnapLen] = useState('')
  const [bufferMiB, setBufferMiB] = useState('')
  const [ringFrames, setRingFrames] = useState('')
  const [error, setError] = useState<{ kind?: string; text: string } | null>(null)
  const [busy, setBusy] = useState(false)
  const [saved, setSaved] = useState<string | null>(null)
  const active = cap?.state === 'capturing' || cap?.state === 'starting' || cap?.state === 'stopping'
  const status = useInspector((s) => s.status)
  const liveSource = status?.source?.kind === 'interface'
  // Save and Restart need a capture: frames from an interface to save, a started capture to restart.
  const canSave = liveSource && (status?.frames ?? 0) > 0
  const canRestart = !!cap?.interface && (active || liveSource) && cap.state !== 'starting' && cap.state !== 'stopping'

  useEffect(() => {
    if (!api) return
    api.listCaptureDevices().then(
      (l) => {
        setList(l)
        const preferred = l.devices.find((d) => d.traffic && !d.loopback) ?? l.devices.find((d) => d.up) ?? l.devices[0]
        setDevice((cur) => cur || cap?.interface || preferred?.name || '')
      },
      (e) => setListError(errorMessage(e))
    )
  }, [api])

  const options = (): CaptureOptions | null => {
    const o: CaptureOptions = { interface: device, promiscuous }
    if (filter.trim()) o.filter = filter.trim()
    const chosen = presets.map((id) => (list?.presets.find((p) => p.id === id)?.userPorts ? `${id}:${(presetPorts[id] ?? '').replace(/\s+/g, '')}` : id))
    if (chosen.length) o.presets = chosen
    const intField = (text: string, what: string, scale = 1): number | undefined | null => {
      if (!text.trim()) return undefined
      const n = Number(text)
      if (!Number.isInteger(n) || n < 1) {
        setError({ text: `${what} must be a positive whole number` })
        return null
      }
      return n * scale
    }
    const s = intField(snapLen, 'Snap length')
    const b = intField(bufferMiB, 'Buffer size', 1 << 20)
    const r = intField(ringFrames, 'Ring limit')
    if (s === null || b === null || r === null) return null
    if (s) o.snapLen = s
    if (b) o.bufferSize = b
    if (r) o.ringFrames = r
    return o
  }

  const run = async (what: () => Promise<unknown>) => {
    setBusy(true)
    setError(null)
    try {
      await what()
    } catch (e) {
      const text = errorMessage(e)
      setError({ kind: useInspector.getState().status?.captureState.errorKind, text })
    } finally {
      setBusy(false)
    }
  }
  const start = () => {
    const o = options()
    if (o && api) void run(() => api.startCapture(o))
  }
  const save = () =>
    void run(async () => {
      const r = await api!.saveCapture()
      if (r.cancelled) return
      if (r.downloadUrl) {
        const a = document.createElement('a')
        a.href = r.downloadUrl
        a.download = r.fileName
        document.body.appendChild(a)
        a.click()
        a.remove()
      }
      setSaved(`Saved ${plural(r.frames, 'frame')}${r.file ? ` to ${r.file}` : ` as ${r.fileName}`}`)
      notify('info', `Saved ${plural(r.frames, 'frame')} as pcapng`)
    })

  const filterError = error && (error.kind === 'filter' || /filter|syntax/i.test(error.text)) ? error.text : null
  return (
    <div className="capture-panel" role="dialog" aria-label="Live capture" data-testid="capture-panel" data-state={cap?.state ?? 'off'}>
      <div className="capture-panel-head">
        <h2>Live capture</h2>
        <button type="button" className="icon-button" onClick={() => setCaptureDialog(false)} title="Close" data-testid="capture-close">
          ✕
        </button>
      </div>
      {listError && <div className="error">{listError}</div>}
      {list?.unavailable && (
        <div className="error" data-testid="capture-unavailable">
          {list.unavailable}
        </div>
      )}
      <label className="field">
        Device
        <select value={device} onChange={(e) => setDevice(e.target.value)} disabled={active || !list || !!list.unavailable} data-testid="capture-device">
          {!list && <option value="">Loading devices…</option>}
          {list?.devices.map((d) => (
            <option key={d.name} value={d.name} title={d.flags.join(' ')}>
              {deviceLabel(d)}
            </option>
          ))}
        </select>
      </label>
      <fieldset disabled={active}>
        <legend>Presets</legend>
        {list?.presets.map((p) => (
          <label key={p.id} className="check" title={p.description}>
            <input
              type="checkbox"
              checked={presets.includes(p.id)}
              onChange={(e) => setPresets((cur) => (e.target.checked ? [...cur, p.id] : cur.filter((x) => x !== p.id)))}
              data-testid={`capture-preset-${p.id}`}
            />
            {p.label}
            {p.userPorts && presets.includes(p.id) && (
              <input
                className="ports"
                placeholder="ports, e.g. 7777"
                value={presetPorts[p.id] ?? ''}
                onChange={(e) => setPresetPorts((c) => ({ ...c, [p.id]: e.target.value }))}
              />
            )}
          </label>
        ))}
      </fieldset>
      <label className="field">
        Capture filter (BPF)
        <input
          type="text"
          className={filterError ? 'invalid' : ''}
          value={filter}
          placeholder="e.g. udp port 5055 or host 10.0.0.5"
          onChange={(e) => setFilter(e.target.value)}
          onKeyDown={(e) => e.key === 'Enter' && !active && start()}
          disabled={active}
          spellCheck={false}
          data-testid="capture-filter"
        />
      </label>
      {filterError && (
        <div className="error" data-testid="capture-filter-error">
          {filterError}
        </div>
      )}
      <fieldset disabled={active} className="capture-options">
        <legend>Options</legend>
        <label className="check">
          <input type="checkbox" checked={promiscuous} onChange={(e) => setPromiscuous(e.target.checked)} /> Promiscuous
        </label>
        <label>
          Snap length <input type="text" inputMode="numeric" value={snapLen} placeholder="262144" onChange={(e) => setSnapLen(e.target.value)} />
        </label>
        <label>
          Buffer (MiB) <input type="text" inputMode="numeric" value={bufferMiB} placeholder="default" onChange={(e) => setBufferMiB(e.target.value)} />
        </label>
        <label>
          Ring limit (frames){' '}
          <input
            type="text"
            inputMode="numeric"
            value={ringFrames}
            placeholder="1000000"
            onChange={(e) => setRingFrames(e.target.value)}
            data-testid="capture-ring"
          />
        </label>
      </fieldset>
      {error && !filterError && (
        <div className="error" data-testid="capture-error">
          {error.text}
        </div>
      )}
      {cap && cap.state !== 'off' && (
        <div className="muted" data-testid="capture-summary">
          {cap.state} {cap.interface ? `on ${cap.interface}` : ''} · {plural(cap.frames ?? 0, 'frame')} · dropped{' '}
          {cap.dropped == null ? 'n/a' : num(cap.dropped)}
        </div>
      )}
      {saved && <div data-testid="capture-saved">{saved}</div>}
      <div className="modal-actions">
        <button
          type="button"
          className="button"
          onClick={save}
          disabled={busy || !canSave}
          data-testid="capture-save"
          title={canSave ? 'Save the captured frames as pcapng' : 'Nothing captured to save'}
        >
          Save…
        </button>
        <button
          type="button"
          className="button"
          onClick={() => void run(() => api!.restartCapture())}
          disabled={busy || !canRestart}
          data-testid="capture-restart"
          title={canRestart ? 'Stop and start again with the same options' : 'No capture to restart'}
        >
          Restart
        </button>
        <button type="button" className="button" onClick={() => void run(() => api!.stopCapture())} disabled={busy || !active} data-testid="capture-stop">
          Stop
        </button>
        <button
          type="button"
          className="button primary"
          onClick={start}
          disabled={busy || active || !device || !!list?.unavailable}
          data-testid="capture-start"
        >
          Start
        </button>
      </div>
    </div>
  )
}
