// A server-sent-events parser over raw bytes, fed network reads as they come (a read may end in the
// middle of a line, or of a UTF-8 sequence: lines are only decoded once complete).

import { utf8 } from './text.js';

const LF = 0x0a;

export class SseParser {
  constructor() {
    this.pending = new Uint8Array(0);
    this.data = [];
    this.event = undefined;
    this.framing = false;
  }

  /** Whether anything SSE-shaped (`data:`, `event:`, a `:` comment) has been seen. */
  sawFraming() {
    return this.framing;
  }

  /** The complete events in `bytes` (plus what was pending), as `{event, data}`. */
  feed(bytes) {
    const buf = concat(this.pending, bytes);
    const events = [];
    let start = 0;
    for (let i = buf.indexOf(LF); i !== -1; i = buf.indexOf(LF, start)) {
      let end = i;
      if (end > start && buf[end - 1] === 0x0d) end -= 1;
      this.line(utf8(buf.subarray(start, end)), events);
      start = i + 1;
    }
    this.pending = buf.slice(start);
    return events;
  }

  /** The body is over: a last line without newline and a last event without blank line count. */
  finish() {
    const events = [];
    if (this.pending.length) {
      let line = utf8(this.pending);
      if (line.endsWith('\r')) line = line.slice(0, -1);
      this.pending = new Uint8Array(0);
      this.line(line, events);
    }
    this.dispatch(events);
    return events;
  }

  line(line, events) {
    if (line === '') {
      this.dispatch(events);
      return;
    }
    if (line.startsWith(':')) {
      this.framing = true;
      return;
    }
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'data') {
      this.framing = true;
      this.data.push(value);
    } else if (field === 'event') {
      this.framing = true;
      this.event = value;
    }
    // `id:`, `retry:` and unknown fields carry nothing for us.
  }

  dispatch(events) {
    if (this.data.length) events.push({ event: this.event, data: this.data.join('\n') });
    this.data = [];
    this.event = undefined;
  }
}

function concat(a, b) {
  if (!a.length) return b instanceof Uint8Array ? b : new Uint8Array(b);
  const out = new Uint8Array(a.length + b.length);
  out.set(a, 0);
  out.set(b, a.length);
  return out;
}
