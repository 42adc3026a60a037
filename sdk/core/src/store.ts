// A small observable value: the state machines' (auth, balances, history, transaction) common shape. `subscribe`
// calls the listener at once with the current state (so a view never misses the state it started in) and returns
// the unsubscribe. A listener that throws is reported to the console and does not stop the others.

export type Listener<S> = (state: S) => void;

// Function-valued properties rather than methods: they do not use `this`, so `const { get } = store` is safe.
export interface Readable<S> {
  get: () => S;
  subscribe: (listener: Listener<S>) => () => void;
}

export interface Store<S> extends Readable<S> {
  set: (state: S) => void;
}

export function createStore<S>(initial: S): Store<S> {
  let state = initial;
  const listeners = new Set<Listener<S>>();
  const notify = (listener: Listener<S>) => {
    try {
      listener(state);
    } catch (err) {
      console.error('@onboard/core: a state listener threw', err);
    }
  };
  return {
    get: () => state,
    set(next) {
      if (Object.is(next, state)) return;
      state = next;
      for (const listener of [...listeners]) notify(listener);
    },
    subscribe(listener) {
      listeners.add(listener);
      notify(listener);
      return () => {
        listeners.delete(listener);
      };
    },
  };
}
