// The wallet's history, newest first, a page at a time (cursor paging: constant cost at any depth).
import { useState } from 'react';
import { useHistory } from '../hooks.js';

export function HistoryList({ className, pageSize = 10 }: { className?: string; pageSize?: number }) {
  const { state, load } = useHistory({ limit: pageSize });
  const [pages, setPages] = useState<string[]>([]); // cursors of the pages before the current one
  const data = state.step === 'loaded' ? state.data : undefined;
  const older = () => {
    if (!data?.nextCursor) return;
    setPages([...pages, (state.step === 'loaded' && state.params.cursor) || '']);
    void load({ limit: pageSize, cursor: data.nextCursor });
  };
  const newer = () => {
    const previous = pages.at(-1);
    setPages(pages.slice(0, -1));
    void load(previous ? { limit: pageSize, cursor: previous } : { limit: pageSize });
  };
  return (
    <section className={['onb-history', className].filter(Boolean).join(' ')} aria-label="History">
      <h2 className="onb-title">History</h2>
      {state.step === 'error' && (
        <p role="alert" className="onb-error">
          {state.message}
        </p>
      )}
      <ol className="onb-list" aria-busy={state.step === 'loading'} data-testid="history">
        {data?.records.map((r) => (
          <li key={r.id} data-status={r.status}>
            <span className="onb-summary">{r.summary}</span>
            <span className={`onb-badge onb-${r.status.toLowerCase()}`}>{r.status.toLowerCase()}</span>
            <time dateTime={r.createdAt}>{new Date(r.createdAt).toLocaleString()}</time>
          </li>
        ))}
        {data && data.records.length === 0 && <li>No transactions yet.</li>}
      </ol>
      <div className="onb-row">
        <button type="button" onClick={newer} disabled={pages.length === 0 || state.step === 'loading'}>
          Newer
        </button>
        <button type="button" onClick={older} disabled={!data?.nextCursor || state.step === 'loading'}>
          Older
        </button>
        <button type="button" onClick={() => void load({ limit: pageSize })} disabled={state.step === 'loading'}>
          Refresh
        </button>
      </div>
    </section>
  );
}
