// Hand-overs between threads that ThreadSanitizer cannot see by itself.
//
// libtbb is not built with ThreadSanitizer: when a task_group starts a task,
// or a concurrent queue passes a pointer, the synchronisation happens inside
// the library, and TSan reports the task's reads of what the caller wrote
// before as races. Marking each hand-over in our own code (mark_handed_over by
// the giver before the library call, mark_taken_over by the taker after it) gives
// TSan the edge the library makes, so our code stays checked instead of
// suppressed. Without TSan both are empty and compile to nothing.
#pragma once

#if defined(__SANITIZE_THREAD__)
#define RESHAPER_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define RESHAPER_TSAN 1
#endif
#endif

#ifdef RESHAPER_TSAN
#include <sanitizer/tsan_interface.h>
#endif

namespace reshaper::impl {

// `what` names the hand-over: the object passed, or the owner of the task.
inline void mark_handed_over([[maybe_unused]] const void *what) {
#ifdef RESHAPER_TSAN
    __tsan_release(const_cast<void *>(what));
#endif
}

inline void mark_taken_over([[maybe_unused]] const void *what) {
#ifdef RESHAPER_TSAN
    __tsan_acquire(const_cast<void *>(what));
#endif
}

} // namespace reshaper::impl
