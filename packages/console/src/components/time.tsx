import { useEffect, useState } from 'preact/hooks';

export function formatTime(value: string | number | null | undefined): string {
  if (value === null || value === undefined) return '—';
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? String(value) : date.toLocaleString();
}

/** A datetime-local value (the browser's local time) as an ISO instant; undefined when empty or not a time. */
export function isoOf(local: string): string | undefined {
  if (local === '') return undefined;
  const date = new Date(local);
  return Number.isNaN(date.getTime()) ? undefined : date.toISOString();
}

function span(ms: number): string {
  const seconds = Math.floor(ms / 1000);
  if (seconds < 60) return `${seconds} s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes} min ${seconds % 60} s`;
  const hours = Math.floor(minutes / 60);
  if (hours < 48) return `${hours} h ${minutes % 60} min`;
  return `${Math.floor(hours / 24)} days`;
}

/** Time left until a deadline, kept current every second. */
export function TimeLeft({ until }: { until: string | number }) {
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 1_000);
    return () => clearInterval(timer);
  }, []);
  const left = new Date(until).getTime() - now;
  return (
    <time dateTime={new Date(until).toISOString()} title={formatTime(until)}>
      {left > 0 ? `${span(left)} left` : 'expired'}
    </time>
  );
}
