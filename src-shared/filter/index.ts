// The display-filter language: a Wireshark-style subset over gamewire's field keys.
// See docs/filter-language.md for the user-facing reference.

export { compileFilter } from './compile'
export type { CompiledFilter, FilterTarget } from './compile'
export { tokenize, FilterError } from './lexer'
export type { Token, TokenKind } from './lexer'
export { targetFromMessage } from './target'
