// Glued values as myst-nb writes them into the book (myst_nb.core.variables.format_plain_text):
// the stored text/plain is read as a Python literal, then formatted by Python's format
// mini-language. Only what the book's roles use is implemented: no spec (str), "s", ",",
// and [+][,][.N](f|e|g|%); for anything else formatGlue returns null (the role is left as is).
// Numbers are rounded as Python rounds them: on the exact binary value, ties to even.

'use strict';

// A Python literal as text/plain shows it: a quoted string, a number, or anything else (kept).
function literal(text) {
  const t = text.trim();
  const quoted = /^(['"])(.*)\1$/s.exec(t);
  if (quoted) {
    return quoted[2].replace(/\\(['"\\])/g, '$1').replace(/\\n/g, '\n').replace(/\\t/g, '\t');
  }
  if (/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(t)) return Number(t);
  if (/^[+-]?(inf|nan)$/.test(t)) return Number(t.replace('inf', 'Infinity').replace('nan', 'NaN'));
  return t;
}

// |x| exactly, as its significant decimal digits and the position of the point among them:
// 0.125 -> {digits: "125", point: 0}, 123.4 -> {"1234", 3}, 0.00123 -> {"123", -2}
// (toFixed(100) is exact to 100 decimals, far below the book's smallest values).
function exactDigits(x) {
  const a = Math.abs(x);
  const [whole, fraction = ''] = a >= 1e21 ? [BigInt(a).toString()] : a.toFixed(100).split('.');
  const all = whole + fraction;
  const significant = all.replace(/^0+/, '');
  return { digits: significant.replace(/0+$/, ''), point: whole.length - (all.length - significant.length) };
}

// The first `keep` digits of a digit string, rounded half to even by what follows them.
function roundHalfEven(digits, keep) {
  if (keep < 0) return { digits: '', carry: false };
  const kept = digits.slice(0, keep).padEnd(keep, '0');  // (keep < 0 is caught above)
  const rest = digits.slice(keep);
  const up = rest[0] > '5' || (rest[0] === '5' && (/[1-9]/.test(rest.slice(1)) || Number(kept.slice(-1) || '0') % 2 === 1));
  if (!up) return { digits: kept, carry: false };
  const bumped = (BigInt(kept || '0') + 1n).toString().padStart(keep, '0');
  return bumped.length > keep ? { digits: bumped, carry: true } : { digits: bumped, carry: false };
}

// |x| with `places` decimals: "0.12" for 0.125 and 2.
function fixedDigits(x, places) {
  const { digits, point } = exactDigits(x);
  const scaled = (roundHalfEven(digits, point + places).digits || '0').replace(/^0+(?=\d)/, '').padStart(places + 1, '0');
  return places > 0 ? `${scaled.slice(0, -places)}.${scaled.slice(-places)}` : scaled;
}

// |x| as `places` + 1 significant digits and a decimal exponent: ["125", -1] for 0.125 and 2.
function scientificDigits(x, places) {
  if (x === 0) return ['0'.repeat(places + 1), 0];
  const { digits, point } = exactDigits(x);
  const r = roundHalfEven(digits, places + 1);
  return r.carry ? [r.digits.slice(0, places + 1), point] : [r.digits, point - 1];
}

function exponentText(exponent) {
  return (exponent < 0 ? 'e-' : 'e+') + String(Math.abs(exponent)).padStart(2, '0');
}

function scientific(x, places) {
  const [m, exponent] = scientificDigits(x, places);
  return (places > 0 ? `${m[0]}.${m.slice(1)}` : m) + exponentText(exponent);
}

// Python's "g": scientific when the exponent is below -4 or at least the precision,
// fixed otherwise; trailing zeros dropped.
function general(x, precision) {
  const p = precision === 0 ? 1 : precision;
  const [m, exponent] = scientificDigits(x, p - 1);
  if (exponent < -4 || exponent >= p) {
    const mantissa = (p > 1 ? `${m[0]}.${m.slice(1)}` : m).replace(/\.?0+$/, '');
    return mantissa + exponentText(exponent);
  }
  const s = fixedDigits(x, Math.max(0, p - 1 - exponent));
  return s.includes('.') ? s.replace(/\.?0+$/, '') : s;
}

function group(digits) {
  return digits.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

const SPEC = /^(\+)?(,)?(?:\.(\d+))?([efg%])$/;

// format(value, spec) as myst-nb applies it to a glued value's text/plain; null when the
// spec is outside the subset above.
function formatGlue(text, spec) {
  const value = literal(text);
  if (spec === '' || spec === 's') return typeof value === 'number' ? text.trim() : String(value);
  if (typeof value !== 'number') return null;
  if (spec === ',') {
    const t = text.trim().replace(/^\+/, '');
    if (/e/i.test(t)) return null;
    const [whole, fraction] = t.replace('-', '').split('.');
    return (t.startsWith('-') ? '-' : '') + group(whole) + (fraction === undefined ? '' : `.${fraction}`);
  }
  const m = SPEC.exec(spec);
  if (!m) return null;
  const [, plus, comma, digits, type] = m;
  const places = digits === undefined ? 6 : Number(digits);
  let body;
  if (Number.isNaN(value)) body = 'nan';
  else if (!Number.isFinite(value)) body = 'inf';
  else if (type === 'f') body = fixedDigits(value, places);
  else if (type === '%') body = fixedDigits(value * 100, places) + '%';
  else if (type === 'e') body = scientific(value, places);
  else body = general(value, places);
  if (comma) body = body.replace(/^\d+/, (d) => group(d));
  const negative = value < 0 || Object.is(value, -0);
  return (negative ? '-' : plus ? '+' : '') + body;
}

module.exports = { formatGlue, literal };
