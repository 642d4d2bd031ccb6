// Types for make-conversations-capture.mjs, so TypeScript tests can write such captures.
export function writeConversationsCapture(out: string, opts?: { udp?: number; tcp?: number; rate?: number; seed?: number }): Promise<{ frames: number }>
