// pcapng block types and option codes (draft-ietf-opsawg-pcapng), shared by the reader and the writer.

export const PCAPNG_SHB = 0x0a0d0d0a
export const PCAPNG_BOM = 0x1a2b3c4d
export const BT_IDB = 1
export const BT_PB = 2 // obsolete Packet Block
export const BT_SPB = 3
export const BT_EPB = 6

export const OPT_ENDOFOPT = 0
export const OPT_COMMENT = 1
export const SHB_USERAPPL = 4
export const IF_NAME = 2
export const IF_DESCRIPTION = 3
export const IF_TSRESOL = 9
export const IF_FCSLEN = 13
export const IF_TSOFFSET = 14
