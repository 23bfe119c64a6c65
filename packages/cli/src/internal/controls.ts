/**
 * Terminal control characters in text that comes from elsewhere (a server, a log): what a
 * terminal would act on (retitle, recolour, move the cursor, query) is removed, so the text
 * shows as text. Newlines and tabs stay.
 */

// One alternation, longest forms first:
// - string controls: DCS, SOS, OSC, PM, APC (7-bit ESC P/X/]/^/_ or 8-bit 0x90/0x98/0x9d/0x9e/0x9f),
//   up to BEL or ST (ESC \ or 0x9c), or to the end of the text when unterminated;
// - CSI (ESC [ or 0x9b): parameter bytes, intermediate bytes, one final byte;
// - other escape sequences: ESC, intermediate bytes, one final byte;
// - any other C0 control but tab and newline, DEL, and C1 control.
const SEQUENCES = new RegExp(
  [
    "(?:\\u001b[PX\\]^_]|[\\u0090\\u0098\\u009d\\u009e\\u009f])[^\\u0007\\u009c\\u001b]*(?:\\u0007|\\u009c|\\u001b\\\\|(?=\\u001b)|$)",
    "(?:\\u001b\\[|\\u009b)[\\u0030-\\u003f]*[\\u0020-\\u002f]*[\\u0040-\\u007e]?",
    "\\u001b[\\u0020-\\u002f]*[\\u0030-\\u007e]?",
    "[\\u0000-\\u0008\\u000b-\\u001f\\u007f-\\u009f]"
  ].join("|"),
  "g"
)

/** `text` without terminal control sequences and control characters (tab and newline kept). */
export const sanitize = (text: string): string => text.replace(SEQUENCES, "")

const JSON_UNSAFE = /[\u007f-\u009f]/g

/**
 * JSON text with DEL and the C1 controls written as `\u00XX` escapes (the same JSON value;
 * `JSON.stringify` escapes only C0), so that printing it never drives a terminal.
 */
export const escapeJsonControls = (json: string): string =>
  json.replace(JSON_UNSAFE, (character) => `\\u${character.charCodeAt(0).toString(16).padStart(4, "0")}`)
