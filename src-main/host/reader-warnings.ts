// The capture reader's warnings of a file the app holds, kept with their place among the frames, so that
// decoding the held frames again (an export, a re-decode after a key change) lists its warnings in the
// order decoding the file itself does.

/** A warning of the capture reader, with how many frames it had read before it. */
export interface ReaderWarning {
  text: string
  after: number
}

/**
 * Gives held frames' reader warnings back where reading the file raised them: before the first frame read
 * after each. So a decode of held frames lists its warnings in the order a decode of the file does.
 */
export class ReaderWarnings {
  private next = 0

  constructor(
    private readonly list: readonly ReaderWarning[],
    private readonly warn: (text: string) => void
  ) {}

  /** Warns those raised before frame `number` was read (call before decoding that frame). */
  before(number: number): void {
    const list = this.list
    while (this.next < list.length && list[this.next].after < number) this.warn(list[this.next++].text)
  }

  /** Warns the rest: those raised after the last frame (call before the decode's end). */
  rest(): void {
    this.before(Number.POSITIVE_INFINITY)
  }
}
