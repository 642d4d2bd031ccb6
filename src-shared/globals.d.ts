// The web-standard globals src-shared uses, declared here because this tree is compiled with neither the
// DOM nor Node types (it runs in Node, in worker threads and in the renderer, which all have them).
// Shapes from the WHATWG Encoding Standard (https://encoding.spec.whatwg.org/#interface-textdecoder).

declare global {
  interface TextDecoderOptions {
    fatal?: boolean
    ignoreBOM?: boolean
  }
  interface TextDecodeOptions {
    stream?: boolean
  }
  interface TextDecoder {
    readonly encoding: string
    readonly fatal: boolean
    readonly ignoreBOM: boolean
    decode(input?: ArrayBufferView | ArrayBuffer, options?: TextDecodeOptions): string
  }
  var TextDecoder: { prototype: TextDecoder; new (label?: string, options?: TextDecoderOptions): TextDecoder }

  interface TextEncoderEncodeIntoResult {
    read: number
    written: number
  }
  interface TextEncoder {
    readonly encoding: string
    encode(input?: string): Uint8Array<ArrayBuffer>
    encodeInto(source: string, destination: Uint8Array): TextEncoderEncodeIntoResult
  }
  var TextEncoder: { prototype: TextEncoder; new (): TextEncoder }
}

export {}
