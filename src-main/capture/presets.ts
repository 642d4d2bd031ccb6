// Capture-filter presets: the ports each protocol's servers listen on by default, as data the CLI
// (`--preset NAME`) and the app's capture dialog both list. ENet and LiteNetLib have no standard port,
// so their presets take the ports the user names (`enet:7777`, `litenetlib:9050,9051`).

export type PresetTransport = 'udp' | 'tcp'

export interface PresetPort {
  transport: PresetTransport
  port: number
  /** What listens there (shown next to the port). */
  role: string
}

export interface CapturePreset {
  /** What `--preset` takes. */
  id: string
  label: string
  protocol: 'photon' | 'sfs2x' | 'fignet'
  description: string
  ports: PresetPort[]
  /** The preset carries no ports of its own: the user names them (`id:PORT[,PORT...]`) on this transport. */
  userPorts?: PresetTransport
}

const udp = (port: number, role: string): PresetPort => ({ transport: 'udp', port, role })
const tcp = (port: number, role: string): PresetPort => ({ transport: 'tcp', port, role })

// Photon ports from the Photon port table (docs/photon.md); SFS2X from its server
// defaults (docs/sfs2x.md).
export const CAPTURE_PRESETS: readonly CapturePreset[] = [
  {
    id: 'photon-udp',
    label: 'Photon (UDP)',
    protocol: 'photon',
    description: 'Photon Cloud/Server over UDP: name server, master and game server',
    ports: [
      udp(5058, 'name server'),
      udp(5055, 'master server'),
      udp(5056, 'game server'),
      udp(27000, 'name server (alt)'),
      udp(27001, 'master server (alt)'),
      udp(27002, 'game server (alt)')
    ]
  },
  {
    id: 'photon-tcp',
    label: 'Photon (TCP)',
    protocol: 'photon',
    description: 'Photon over TCP: name server, master and game server',
    ports: [tcp(4533, 'name server'), tcp(4530, 'master server'), tcp(4531, 'game server')]
  },
  {
    id: 'photon-ws',
    label: 'Photon (WebSocket)',
    protocol: 'photon',
    description: 'Photon over WebSocket (ws; wss is TLS and shows as encrypted TCP)',
    ports: [tcp(9093, 'name server'), tcp(9090, 'master server'), tcp(9091, 'game server')]
  },
  {
    id: 'sfs2x-tcp',
    label: 'SmartFoxServer 2X (TCP)',
    protocol: 'sfs2x',
    description: 'SFS2X binary protocol over TCP',
    ports: [tcp(9933, 'SFS2X socket')]
  },
  {
    id: 'sfs2x-ws',
    label: 'SmartFoxServer 2X (WebSocket)',
    protocol: 'sfs2x',
    description: 'SFS2X over WebSocket /BlueBox/websocket (8443 is TLS: only the handshake is visible)',
    ports: [tcp(8080, 'HTTP/WebSocket'), tcp(8443, 'HTTPS/WSS')]
  },
  {
    id: 'enet',
    label: 'FigNet over ENet',
    protocol: 'fignet',
    description: 'ENet (UDP) on the ports you name, e.g. enet:7777',
    ports: [],
    userPorts: 'udp'
  },
  {
    id: 'litenetlib',
    label: 'FigNet over LiteNetLib',
    protocol: 'fignet',
    description: 'LiteNetLib (UDP) on the ports you name, e.g. litenetlib:9050',
    ports: [],
    userPorts: 'udp'
  }
]

/** Shorthands that select several presets. */
export const PRESET_GROUPS: Readonly<Record<string, readonly string[]>> = {
  photon: ['photon-udp', 'photon-tcp', 'photon-ws'],
  sfs2x: ['sfs2x-tcp', 'sfs2x-ws']
}

export class PresetError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'PresetError'
  }
}

function parsePort(text: string, preset: string): number {
  const n = Number(text)
  if (!/^\d+$/.test(text) || n < 1 || n > 65535) throw new PresetError(`preset ${preset}: '${text}' is not a port (1-65535)`)
  return n
}

/** The ports selected by one `--preset` argument: `photon`, `sfs2x-ws`, `enet:7777,7778`. */
export function presetPorts(arg: string): PresetPort[] {
  const [id, portList] = arg.split(':', 2) as [string, string | undefined]
  const group = PRESET_GROUPS[id]
  if (group) {
    if (portList !== undefined) throw new PresetError(`preset ${id} takes no ports`)
    return group.flatMap((g) => presetPorts(g))
  }
  const preset = CAPTURE_PRESETS.find((p) => p.id === id)
  if (!preset) {
    const names = [...Object.keys(PRESET_GROUPS), ...CAPTURE_PRESETS.map((p) => (p.userPorts ? `${p.id}:PORT` : p.id))]
    throw new PresetError(`unknown preset '${id}' (presets: ${names.join(', ')})`)
  }
  if (preset.userPorts) {
    if (!portList) throw new PresetError(`preset ${id} needs the ports to watch: ${id}:PORT[,PORT...]`)
    return portList.split(',').map((p) => ({ transport: preset.userPorts!, port: parsePort(p.trim(), id), role: preset.label }))
  }
  if (portList !== undefined) throw new PresetError(`preset ${id} has fixed ports; use -f for others`)
  return [...preset.ports]
}

/**
 * The BPF expression for a list of presets, combined with the user's own expression: the presets are
 * alternatives (any of their ports), the user's expression narrows them (`--preset photon -f 'host 10.0.0.5'`).
 */
export function captureFilter(presets: readonly string[], userFilter?: string): string {
  const seen = new Set<string>()
  const terms: string[] = []
  for (const p of presets.flatMap(presetPorts)) {
    const term = `${p.transport} port ${p.port}`
    if (!seen.has(term)) {
      seen.add(term)
      terms.push(term)
    }
  }
  const user = userFilter?.trim() ?? ''
  if (!terms.length) return user
  const presetExpr = terms.join(' or ')
  return user ? `(${presetExpr}) and (${user})` : presetExpr
}
