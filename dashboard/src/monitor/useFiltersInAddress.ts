// The monitor pages keep their filters in the address, so a filtered view can be shared and survives a reload.
import { useSearchParams } from 'react-router';

/** The address's query and the two ways to change its filters (`names`: every filter the page reads). */
export function useFiltersInAddress<Name extends string>(names: readonly Name[]) {
  const [searchParams, setSearchParams] = useSearchParams();
  // From the address as it is now, so two quick changes do not undo each other; replaced, not pushed, as filtering is
  // not navigation (Back leaves the page rather than undoing each filter).
  const change = (edit: (next: URLSearchParams) => void) =>
    setSearchParams(
      (current) => {
        const next = new URLSearchParams(current);
        edit(next);
        return next;
      },
      { replace: true },
    );
  return {
    searchParams,
    setFilter: (name: Name, value: string | null) =>
      change((next) => (value ? next.set(name, value) : next.delete(name))),
    clearFilters: () =>
      change((next) => {
        for (const name of names) next.delete(name);
      }),
  };
}
