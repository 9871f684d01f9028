import { useEffect, useState } from 'preact/hooks';

/** A media query's current answer, updated on rotation and resize. */
export function useMedia(q: string): boolean {
  const [match, setMatch] = useState(() => window.matchMedia(q).matches);
  useEffect(() => {
    const m = window.matchMedia(q);
    const on = () => setMatch(m.matches);
    on();
    m.addEventListener('change', on);
    return () => m.removeEventListener('change', on);
  }, [q]);
  return match;
}

/** Wide screens get tables; tablets (portrait, phones) get cards. */
export const useWide = () => useMedia('(min-width: 1100px)');

/** Re-renders every `ms` (countdowns). */
export function useNow(ms = 1000): number {
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    const t = setInterval(() => setNow(Date.now()), ms);
    return () => clearInterval(t);
  }, [ms]);
  return now;
}
