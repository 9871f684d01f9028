// An alarm in the crew's words, decided once on the box for every screen and message: where it is
// ("House 2"), and its cause with the value against its limit ("Temperature 38 °C, above the limit
// of 31 °C") instead of the rule's own syntax ("temp 38 gt 31 for 120 s").

import type { TextParams } from './alarm-view-item.js';

const UNIT_NOUN: Record<string, string> = { poultry: 'House', swine: 'Room', melioration: 'Field' };

/** A text of the view as a key (box.*) with its parameters; see box-text.ts. */
export interface KeyedText { key: string; params: TextParams }

/**
 * The key of placeOf: "House 2" is box.place.unit {industry, place}; a unit with a name of its
 * own has no key (its name is no one language's).
 */
export function placeKey(industry: string | null, unit: string | null): KeyedText | null {
  if (!unit || !industry || !UNIT_NOUN[industry]) return null;
  const bare = /^(?:house|room|pen|field|h|r|f)?[\s_-]*(\d+[a-z]?)$/i.exec(unit)?.[1];
  return bare ? { key: 'box.place.unit', params: { industry, place: bare } } : null;
}

/** "House 2" for unit 2 (or house-2, H2) of a poultry site; a unit with a name of its own in words. */
export function placeOf(industry: string | null, unit: string | null): string | null {
  if (!unit) return null;
  const noun = industry ? UNIT_NOUN[industry] : undefined;
  const bare = /^(?:house|room|pen|field|h|r|f)?[\s_-]*(\d+[a-z]?)$/i.exec(unit)?.[1];
  if (noun && bare) return `${noun} ${bare}`;
  const words = unit.replace(/[_-]+/g, ' ').trim();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

const UNITS: Record<string, string> = {
  temp: '°C', temp_c: '°C', temperature: '°C', humidity: '%', humidity_pct: '%', rh: '%', co2: 'ppm', co2_ppm: 'ppm', nh3: 'ppm', nh3_ppm: 'ppm',
  ventilation: '%', ventilation_pct: '%', water_deviation_pct: '%', feed_deviation_pct: '%', pressure_bar: 'bar', soil_moisture: '%', soil_moisture_pct: '%', level_m: 'm',
};
const METRIC_WORDS: Record<string, string> = {
  temp: 'Temperature', temp_c: 'Temperature', temperature: 'Temperature', humidity: 'Humidity', humidity_pct: 'Humidity', rh: 'Humidity',
  co2: 'CO2', co2_ppm: 'CO2', nh3: 'NH3', nh3_ppm: 'NH3', ventilation: 'Ventilation', ventilation_pct: 'Ventilation',
  water_deviation_pct: 'Water against expected', feed_deviation_pct: 'Feed against expected', pressure_bar: 'Line pressure',
  soil_moisture: 'Soil moisture', soil_moisture_pct: 'Soil moisture', level_m: 'Water level',
};

/** The quantity a metric measures, as the catalogue's box.cause messages name it (a select over these codes). */
const QUANTITY: Record<string, string> = {
  temp: 'temp', temp_c: 'temp', temperature: 'temp', humidity: 'humidity', humidity_pct: 'humidity', rh: 'humidity',
  co2: 'co2', co2_ppm: 'co2', nh3: 'nh3', nh3_ppm: 'nh3', ventilation: 'ventilation', ventilation_pct: 'ventilation',
  water_deviation_pct: 'water_deviation', feed_deviation_pct: 'feed_deviation', pressure_bar: 'pressure',
  soil_moisture: 'soil_moisture', soil_moisture_pct: 'soil_moisture', level_m: 'level',
};
/** Unit symbols as codes for the catalogue (which writes "38 °C" but "60%"). */
const SYMBOL: Record<string, string> = { '°C': 'celsius', '%': 'percent', ppm: 'ppm', bar: 'bar', m: 'metre' };

const humanise = (s: string) => {
  const w = s.replace(/[_-]+/g, ' ').trim();
  return w.charAt(0).toUpperCase() + w.slice(1);
};
const rounded = (n: number) => (Number.isInteger(n) ? n : Number(n.toFixed(1)));
const amount = (n: number, unit: string | undefined) => `${Number.isInteger(n) ? n : Number(n.toFixed(1))}${unit ? (unit === '%' ? '' : ' ') + unit : ''}`;

export interface CauseInput {
  metric: string | null;
  value: number | null;
  threshold: number | null;
  comparator: string | null;
  message: string | null;
}

/** "Temperature 38 °C, above the limit of 31 °C"; without a limit the value; without a value the message. */
export function causeOf(a: CauseInput): string | null {
  if (a.metric === 'comm_loss' || a.value === null || !a.metric) return a.message;
  const unit = UNITS[a.metric];
  const value = `${METRIC_WORDS[a.metric] ?? humanise(a.metric)} ${amount(a.value, unit)}`;
  if (a.threshold === null) return value;
  const side = a.comparator?.startsWith('l') ? 'below' : a.comparator?.startsWith('g') ? 'above' : 'against';
  return `${value}, ${side} the limit of ${amount(a.threshold, unit)}`;
}

/**
 * The key of causeOf: box.cause.limit / box.cause.value with the reading as data (quantity code,
 * value, limit, side, symbol code); null where the cause is the alarm's own message (comm loss,
 * no reading), whose key the alarm record keeps.
 */
export function causeKey(a: Omit<CauseInput, 'message'>): KeyedText | null {
  if (a.metric === 'comm_loss' || a.value === null || !a.metric) return null;
  const unit = UNITS[a.metric];
  const params: TextParams = {
    quantity: QUANTITY[a.metric] ?? 'other', quantity_name: humanise(a.metric), reading: rounded(a.value), symbol: unit ? SYMBOL[unit] ?? 'none' : 'none',
  };
  if (a.threshold === null) return { key: 'box.cause.value', params };
  const side = a.comparator?.startsWith('l') ? 'below' : a.comparator?.startsWith('g') ? 'above' : 'against';
  return { key: 'box.cause.limit', params: { ...params, bound: rounded(a.threshold), side } };
}
