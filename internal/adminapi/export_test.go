package adminapi

// Abandon stops js's goroutines as the death of its process (SIGKILL)
// would: its jobs stop where they are and write nothing more, it renews
// no lease and takes no job over. js is not to be used after.
func (js *Jobs) Abandon() {
	js.kill()
	js.wg.Wait()
}
