// Capture-file reading (pcap, pcapng) and writing (pcapng). Browser-safe: no Node APIs.
export * from './types'
export { CaptureReader, MAX_RECORD } from './reader'
export {
  PcapngWriter,
  type PcapngWriterFrame,
  type PcapngWriterInterface,
  type PcapngWriterOptions
} from './pcapng-writer'
