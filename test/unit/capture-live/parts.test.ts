// The pieces of live capture that need no traffic: error wording, link types, presets,
// the pcapng file writer (read back by tshark), the device list, and what happens without `cap`.
import { describe, it, expect } from 'vitest'
import { execFileSync, spawnSync } from 'node:child_process'
import { cpSync, mkdirSync, mkdtempSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs'
import { createSocket } from 'node:dgram'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { classifyOpenError, linkTypeFromCap, permissionHelp, CaptureError } from '../../../src-main/capture/live'
import { captureFilter, presetPorts, CAPTURE_PRESETS, PresetError } from '../../../src-main/capture/presets'
import { PcapngFile } from '../../../src-main/capture/pcapng-file'
import { deviceTraffic, friendlyDeviceName, listDevices } from '../../../src-main/capture/devices'
import { LiveCaptureHost } from '../../../src-main/capture/live-host'
import { ROOT, tsharkFrames } from './runner'

const tmp = mkdtempSync(join(tmpdir(), 'gw-live-parts-'))

describe('open errors become one actionable line', () => {
  it('permission errors, in the wordings libpcap versions use, say how to grant the right', () => {
    for (const msg of [
      'socket: Operation not permitted',
      "You don't have permission to capture on that device (socket: Operation not permitted)",
      "eth0: You don't have permission to perform this capture on that device",
      'Attempt to open /dev/bpf0 failed: Permission denied'
    ]) {
      const e = classifyOpenError(msg, 'eth0', '/usr/bin/node')
      expect(e.kind, msg).toBe('permission')
      expect(e.message, msg).toContain(`no permission to capture on eth0 (libpcap: ${msg})`)
      expect(e.message).toContain('run as root (sudo), or grant node the capture capabilities once: sudo setcap cap_net_raw,cap_net_admin=eip /usr/bin/node')
    }
    expect(classifyOpenError('No such device exists', 'x0').kind).toBe('no-device')
    expect(classifyOpenError('SIOCGIFHWADDR: No such device', 'x0').kind).toBe('no-device')
    expect(classifyOpenError('Unable to set buffer size', 'x0')).toMatchObject({ kind: 'failed', message: 'cannot capture on x0: Unable to set buffer size' })
  })

  it('names the real binary behind a symlink, and the Electron binary when that is what runs', () => {
    const link = join(tmp, 'node-link')
    symlinkSync(process.execPath, link)
    const real = execFileSync('readlink', ['-f', process.execPath]).toString().trim()
    expect(permissionHelp(link)).toContain(`setcap cap_net_raw,cap_net_admin=eip ${real}`)
    expect(permissionHelp(link)).toContain('$(readlink -f $(which node))')
    const electron = permissionHelp('/opt/gamewire/gamewire-app')
    expect(electron).toBe(
      'run as root (sudo), or grant the Electron binary the capture capabilities once: sudo setcap cap_net_raw,cap_net_admin=eip /opt/gamewire/gamewire-app'
    )
  })

  it('maps cap link-type names to LINKTYPE_ numbers', () => {
    expect(['ETHERNET', 'NULL', 'RAW', 'LINKTYPE_LINUX_SLL', 'Unknown linktype 276', 'Unknown linktype 228'].map(linkTypeFromCap)).toEqual([
      1, 0, 101, 113, 276, 228
    ])
    expect(() => linkTypeFromCap('WAT')).toThrow(CaptureError)
  })
})

describe('capture presets', () => {
  it("lists the protocols' usual ports as data", () => {
    const ports = (id: string) => CAPTURE_PRESETS.find((p) => p.id === id)!.ports.map((p) => `${p.transport}/${p.port}`)
    expect(ports('photon-udp')).toEqual(expect.arrayContaining(['udp/5055', 'udp/5056', 'udp/5058']))
    expect(ports('photon-tcp')).toEqual(['tcp/4533', 'tcp/4530', 'tcp/4531'])
    expect(ports('sfs2x-tcp')).toEqual(['tcp/9933'])
    expect(ports('sfs2x-ws')).toEqual(['tcp/8080', 'tcp/8443'])
    expect(CAPTURE_PRESETS.filter((p) => p.userPorts).map((p) => p.id)).toEqual(['enet', 'litenetlib'])
  })

  it('builds one BPF expression: presets are alternatives, -f narrows them', () => {
    expect(captureFilter(['sfs2x'])).toBe('tcp port 9933 or tcp port 8080 or tcp port 8443')
    expect(captureFilter(['enet:7777,7778', 'litenetlib:7778'], 'host 10.0.0.5')).toBe('(udp port 7777 or udp port 7778) and (host 10.0.0.5)')
    expect(captureFilter([], ' udp ')).toBe('udp')
    expect(captureFilter([])).toBe('')
    expect(presetPorts('photon').length).toBe(12)
    expect(() => presetPorts('enet:0')).toThrow(PresetError)
    expect(() => presetPorts('enet:65536')).toThrow(/not a port/)
    expect(() => presetPorts('sfs2x-tcp:1')).toThrow(/fixed ports/)
    expect(() => presetPorts('photon:1')).toThrow(/takes no ports/)
  })

  it('every preset expression compiles in libpcap', async () => {
    const host = new LiveCaptureHost()
    const filter = captureFilter(['photon', 'sfs2x', 'enet:7777', 'litenetlib:9050'])
    const started = await host.start({ device: 'lo', filter })
    expect(started.filter).toBe(filter)
    await host.stop()
  })
})

describe('PcapngFile', () => {
  it('streams frames that tshark reads back, the file whole after every flush', () => {
    const path = join(tmp, 'stream.pcapng')
    const f = new PcapngFile(path)
    f.header({ linkType: 1, name: 'lo' }, { application: 'gamewire' })
    const eth = (i: number) => Uint8Array.from([...new Array(12).fill(0), 0x88, 0xb5, i, i, i, i])
    for (let i = 0; i < 3; i++) f.frame({ tsSec: 1_800_000_000 + i, tsNsec: 123_456_000, originalLength: 18, data: eth(i) })
    f.flush()
    expect(tsharkFrames(path)).toBe(3)
    for (let i = 3; i < 2000; i++) f.frame({ tsSec: 1_800_000_000 + i, tsNsec: 0, originalLength: 100, data: eth(i & 0xff) })
    f.close()
    expect(tsharkFrames(path)).toBe(2000)
    const first = execFileSync('tshark', ['-r', path, '-c', '1', '-T', 'fields', '-e', 'frame.time_epoch', '-e', 'frame.len', '-e', 'frame.cap_len'], {
      stdio: ['ignore', 'pipe', 'ignore']
    })
      .toString()
      .trim()
      .split('\t')
    expect(first).toEqual(['1800000000.123456000', '18', '18'])
  })
})

describe('devices', () => {
  it('lists lo with its flags, addresses and a friendly name; packet counters move with traffic', async () => {
    const lo = listDevices().find((d) => d.name === 'lo')!
    expect(lo).toMatchObject({ loopback: true, up: true, running: true, friendlyName: 'Loopback' })
    expect(lo.flags).toEqual(expect.arrayContaining(['PCAP_IF_LOOPBACK', 'UP', 'RUNNING']))
    expect(lo.addresses.map((a) => a.addr)).toContain('127.0.0.1')
    const before = deviceTraffic(['lo', 'no/such'])
    expect(before.map((d) => d.name)).toEqual(['lo'])
    const s = createSocket('udp4')
    for (let i = 0; i < 5; i++) await new Promise<void>((r) => s.send('x', 9, '127.0.0.1', () => r()))
    s.close()
    const after = deviceTraffic(['lo'])
    expect(after[0].txPackets - before[0].txPackets).toBeGreaterThanOrEqual(5)
    expect(friendlyDeviceName('wlp3s0')).toBe('Wi-Fi (wlp3s0)')
    expect(friendlyDeviceName('enp0s31f6')).toBe('Ethernet (enp0s31f6)')
    expect(friendlyDeviceName('any', 'Pseudo-device that captures on all interfaces')).toBe('Pseudo-device that captures on all interfaces')
  })

  it('gamewire devices shows the flags; --json has the same devices', () => {
    const text = spawnSync(process.execPath, [join(ROOT, 'bin/gamewire.mjs'), 'devices'], { encoding: 'utf8' })
    expect(text.status).toBe(0)
    expect(text.stdout).toMatch(/^lo \[loopback, up, running\]\tLoopback\t127\.0\.0\.1, ::1$/m)
    const json = JSON.parse(spawnSync(process.execPath, [join(ROOT, 'bin/gamewire.mjs'), 'devices', '--json'], { encoding: 'utf8' }).stdout)
    expect(json.map((d: { name: string }) => d.name)).toEqual(
      text.stdout
        .trim()
        .split('\n')
        .map((l) => l.split(/[\s\t]/)[0])
    )
  })
})

describe('without a loadable cap', () => {
  it('live capture says why it is unavailable; files still decode', () => {
    // A copy of the built app whose node_modules has everything but cap.
    const app = join(tmp, 'app-without-cap')
    mkdirSync(join(app, 'node_modules'), { recursive: true })
    cpSync(join(ROOT, 'bin'), join(app, 'bin'), { recursive: true })
    cpSync(join(ROOT, 'out', 'main'), join(app, 'out', 'main'), { recursive: true })
    writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'gamewire', type: 'module' }))
    for (const m of readdirSync(join(ROOT, 'node_modules')))
      if (m !== 'cap' && m !== '.bin') symlinkSync(join(ROOT, 'node_modules', m), join(app, 'node_modules', m))
    const gw = (...args: string[]) => spawnSync(process.execPath, [join(app, 'bin/gamewire.mjs'), ...args], { cwd: app, encoding: 'utf8', maxBuffer: 1 << 28 })
    for (const args of [['devices'], ['capture', '-i', 'lo']]) {
      const r = gw(...args)
      expect(r.status, args.join(' ')).toBe(2)
      expect(r.stderr).toMatch(
        /^gamewire: live capture unavailable: the optional libpcap binding 'cap' is not installed \(npm skips it when libpcap-dev is missing\); install libpcap-dev .* and run `npm install` again/
      )
      expect(r.stderr.trim().split('\n')).toHaveLength(1)
    }
    const decoded = gw('decode', join(ROOT, 'test/fixtures/net/loopback.pcapng'), '--format', 'ndjson')
    expect(decoded.status).toBe(0)
    expect(JSON.parse(decoded.stdout.trim().split('\n').pop()!).summary.source.frames).toBe(127)
  })
})
