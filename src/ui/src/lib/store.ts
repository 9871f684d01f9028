// The shell's state: the bus and observables (lib/observable.ts), and the hook that renders one.
import { useEffect, useState } from 'preact/hooks';
import type { Observable } from './observable';

export { emit, observable, on, type Observable } from './observable';

export function useObservable<T>(o: Observable<T>): T {
  const [value, setValue] = useState(o.get());
  useEffect(() => {
    setValue(o.get());
    return o.subscribe(setValue);
  }, [o]);
  return value;
}
