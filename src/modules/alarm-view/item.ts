// The alarm view's shapes live with the alarm model (src/industry/alarm-view-item.ts), so the
// shared layers that emit alarm events can build items; this module serves them.
export * from '../../industry/alarm-view-item.js';
