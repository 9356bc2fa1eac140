// Thread-safety annotations: attributes that let clang's -Wthread-safety
// check, at compile time, that state a mutex guards is only touched with
// that mutex held (https://clang.llvm.org/docs/ThreadSafetyAnalysis.html).
// The names and meanings are LevelDB's port/thread_annotations.h and
// Abseil's; with a compiler that lacks the attributes (g++) they expand to
// nothing, so they cost nothing at run time on any compiler.
//
// Use them with base::Mutex / base::MutexLock (base/mutex.h): libstdc++'s
// std::mutex carries no capability attribute, so the analysis cannot see it.
//
//   GUARDED_BY(mu)        a member read or written only with mu held
//   PT_GUARDED_BY(mu)     the pointee of a pointer member, likewise
//   REQUIRES(mu)          a function the caller calls with mu held
//   REQUIRES_SHARED(mu)   ... with mu held at least for reading
//   EXCLUDES(mu)          a function the caller calls without mu (it takes it)
//   ACQUIRED_BEFORE(mu)   on a mutex member: taken before mu when both are held
//   ACQUIRED_AFTER(mu)    on a mutex member: taken after mu when both are held
//   ACQUIRE / RELEASE / TRY_ACQUIRE / ASSERT_CAPABILITY: for lock primitives
//   NO_THREAD_SAFETY_ANALYSIS: opts one function out; say why beside it.
//
// Thread contract: macros only.
#pragma once

#if defined(__clang__)
#define SIGNET_THREAD_ANNOTATION_ATTRIBUTE__(x) __attribute__((x))
#else
#define SIGNET_THREAD_ANNOTATION_ATTRIBUTE__(x)  // no-op
#endif

#ifndef CAPABILITY
#define CAPABILITY(x) SIGNET_THREAD_ANNOTATION_ATTRIBUTE__(capability(x))
#endif

#ifndef SCOPED_CAPABILITY
#define SCOPED_CAPABILITY SIGNET_THREAD_ANNOTATION_ATTRIBUTE__(scoped_lockable)
#endif

#ifndef GUARDED_BY
#define GUARDED_BY(x) SIGNET_THREAD_ANNOTATION_ATTRIBUTE__(guarded_by(x))
#endif

#ifndef PT_GUARDED_BY
#define PT_GUARDED_BY(x) SIGNET_THREAD_ANNOTATION_ATTRIBUTE__(pt_guarded_by(x))
#endif

#ifndef ACQUIRED_AFTER
#define ACQUIRED_AFTER(...) SIGNET_THREAD_ANNOTATION_ATTRIBUTE__(acquired_after(__VA_ARGS__))
#endif

#ifndef ACQUIRED_BEFORE
#define ACQUIRED_BEFORE(...) SIGNET_THREAD_ANNOTATION_ATTRIBUTE__(acquired_before(__VA_ARGS__))
#endif

#ifndef REQUIRES
#define REQUIRES(...) SIGNET_THREAD_ANNOTATION_ATTRIBUTE__(requires_capability(__VA_ARGS__))
#endif

#ifndef REQUIRES_SHARED
#define REQUIRES_SHARED(...) \
  SIGNET_THREAD_ANNOTATION_ATTRIBUTE__(requires_shared_capability(__VA_ARGS__))
#endif

#ifndef ACQUIRE
#define ACQUIRE(...) SIGNET_THREAD_ANNOTATION_ATTRIBUTE__(acquire_capability(__VA_ARGS__))
#endif

#ifndef ACQUIRE_SHARED
#define ACQUIRE_SHARED(...) \
  SIGNET_THREAD_ANNOTATION_ATTRIBUTE__(acquire_shared_capability(__VA_ARGS__))
#endif

#ifndef RELEASE
#define RELEASE(...) SIGNET_THREAD_ANNOTATION_ATTRIBUTE__(release_capability(__VA_ARGS__))
#endif

#ifndef RELEASE_SHARED
#define RELEASE_SHARED(...) \
  SIGNET_THREAD_ANNOTATION_ATTRIBUTE__(release_shared_capability(__VA_ARGS__))
#endif

#ifndef RELEASE_GENERIC
#define RELEASE_GENERIC(...) \
  SIGNET_THREAD_ANNOTATION_ATTRIBUTE__(release_generic_capability(__VA_ARGS__))
#endif

#ifndef TRY_ACQUIRE
#define TRY_ACQUIRE(...) SIGNET_THREAD_ANNOTATION_ATTRIBUTE__(try_acquire_capability(__VA_ARGS__))
#endif

#ifndef EXCLUDES
#define EXCLUDES(...) SIGNET_THREAD_ANNOTATION_ATTRIBUTE__(locks_excluded(__VA_ARGS__))
#endif

#ifndef ASSERT_CAPABILITY
#define ASSERT_CAPABILITY(x) SIGNET_THREAD_ANNOTATION_ATTRIBUTE__(assert_capability(x))
#endif

#ifndef ASSERT_SHARED_CAPABILITY
#define ASSERT_SHARED_CAPABILITY(x) \
  SIGNET_THREAD_ANNOTATION_ATTRIBUTE__(assert_shared_capability(x))
#endif

#ifndef RETURN_CAPABILITY
#define RETURN_CAPABILITY(x) SIGNET_THREAD_ANNOTATION_ATTRIBUTE__(lock_returned(x))
#endif

#ifndef NO_THREAD_SAFETY_ANALYSIS
#define NO_THREAD_SAFETY_ANALYSIS SIGNET_THREAD_ANNOTATION_ATTRIBUTE__(no_thread_safety_analysis)
#endif
