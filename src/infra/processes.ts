// Whether a process of this machine is still running, by its id: for the leftovers a process that ended without
// cleaning up leaves under its pid (a test run's build folder or template database, a killed cluster member).

/** True while a process with this id exists; one of another user's counts (signalling it is refused, EPERM). */
export function isProcessRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
