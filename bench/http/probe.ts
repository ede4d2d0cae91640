/**
 * Imported by every benchmark server: answers the parent's IPC "cpu" message with this process's
 * CPU time so far. Server CPU time per request is the figure that survives a busy shared machine,
 * where req/s moves with whatever else is running.
 */
process.on("message", (message) => {
  if (message === "cpu") {
    const { user, system } = process.cpuUsage();
    process.send?.({ cpuMicros: user + system });
  }
});
// An IPC channel keeps the process alive on its own; the server's socket should be what does.
process.channel?.unref();
