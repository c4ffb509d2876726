/** Hash routes (`#/rules/<id>`): the server serves one page, and a route never carries the key. */
import { useEffect, useState } from 'preact/hooks';

export function currentRoute(): string[] {
  return location.hash.replace(/^#\/?/, '').split('/').filter((part) => part !== '').map(decodeURIComponent);
}

export function useRoute(): string[] {
  const [route, setRoute] = useState(currentRoute);
  useEffect(() => {
    const onChange = () => {
      const next = currentRoute();
      setRoute((shown) => (shown.join('/') === next.join('/') ? shown : next));
    };
    addEventListener('hashchange', onChange);
    // The listener is added after the first paint: a hash that changed in between fired an event nobody heard.
    onChange();
    return () => removeEventListener('hashchange', onChange);
  }, []);
  return route;
}

export function href(...parts: string[]): string {
  return '#/' + parts.map(encodeURIComponent).join('/');
}

export function go(...parts: string[]): void {
  location.hash = href(...parts).slice(1);
}
