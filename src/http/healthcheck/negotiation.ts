/**
 * The `Accept` negotiation of oslo.middleware's healthcheck (webob's `acceptable_offers`): among
 * the offers, those the header accepts, by quality and then in the offers' order; no acceptable
 * offer falls back to the first offer instead of a 406.
 */

const TOKEN = "[!#$%&'*+.^_`|~0-9A-Za-z-]+";
const MEDIA_RANGE = new RegExp(`^(${TOKEN})/(${TOKEN})$`);
const QUALITY = /^(?:0(?:\.\d{0,3})?|1(?:\.0{0,3})?)$/;

interface MediaRange {
  type: string;
  subtype: string;
  quality: number;
  /** Media type parameters other than `q`: such a range matches no offer (offers have none). */
  hasParameters: boolean;
}

/** The header's ranges, or undefined when it does not parse (webob then accepts every offer). */
function parseAccept(header: string): MediaRange[] | undefined {
  const ranges: MediaRange[] = [];
  for (const part of header.split(',')) {
    if (part.trim() === '') continue;
    const [range, ...parameters] = part.split(';').map((piece) => piece.trim());
    const match = MEDIA_RANGE.exec(range);
    if (!match || (match[1] === '*' && match[2] !== '*')) return undefined;
    let quality = 1;
    let hasParameters = false;
    for (const parameter of parameters) {
      const [name, value = ''] = parameter.split('=', 2).map((piece) => piece.trim());
      if (name.toLowerCase() === 'q') {
        if (!QUALITY.test(value)) return undefined;
        quality = Number(value);
      } else if (name !== '') hasParameters = true;
    }
    ranges.push({ type: match[1].toLowerCase(), subtype: match[2].toLowerCase(), quality, hasParameters });
  }
  return ranges;
}

/** The quality the most specific matching range gives `offer` (`type/subtype`), 0 for none. */
function qualityOf(offer: string, ranges: readonly MediaRange[]): number {
  const [type, subtype] = offer.split('/');
  let best: { specificity: number; quality: number } = { specificity: 0, quality: 0 };
  for (const range of ranges) {
    if (range.hasParameters) continue;
    const specificity = range.type === type && range.subtype === subtype ? 3 : range.type === type && range.subtype === '*' ? 2 : range.type === '*' ? 1 : 0;
    if (specificity > best.specificity) best = { specificity, quality: range.quality };
  }
  return best.quality;
}

/**
 * The offer to answer with.
 *
 * oslo.middleware compat: the best offer by quality, ties going to the earlier offer (so a bare
 * `*` or no header picks the first); a header that does not parse accepts every offer; when none
 * is acceptable, the first offer rather than a 406.
 *
 * @param header - the request's `Accept`, or undefined.
 * @param offers - media types in order of preference, e.g. `['text/plain', 'text/html', 'application/json']`.
 */
export function negotiateMediaType<Offer extends string>(header: string | undefined, offers: readonly [Offer, ...Offer[]]): Offer {
  if (header === undefined) return offers[0];
  const ranges = parseAccept(header);
  if (ranges === undefined) return offers[0];
  let chosen: { offer: Offer; quality: number } | undefined;
  for (const offer of offers) {
    const quality = qualityOf(offer, ranges);
    if (quality > 0 && (chosen === undefined || quality > chosen.quality)) chosen = { offer, quality };
  }
  return chosen?.offer ?? offers[0];
}
