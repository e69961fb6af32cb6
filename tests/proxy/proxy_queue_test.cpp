// The proxy request queue (include/gshmem/detail/proxy_queue.h) with host
// threads as the producers (GPU threads in the runtime) and one host thread
// as the consumer: order, wrap-around, back-pressure, completion. The
// producer code is the code kernels run.
//
// Catch2 assertions are made on the main thread only: worker threads record
// what they saw, the main thread checks it.
#include <gshmem/detail/proxy_queue.h>

#include <atomic>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "catch.hpp"
#include "proxy/proxy.h"

namespace gd = gshmem::detail;
using gshmemi::HostProxyQueue;

namespace {

using clock_type = std::chrono::steady_clock;

// A request whose every field is a function of (producer, index), so that a
// torn, stale or overwritten slot shows up as a mismatch.
gd::proxy_request make_request(unsigned producer, unsigned long long index, unsigned op = gd::proxy_op_put) {
  gd::proxy_request r{};
  r.op = op;
  r.pe = (int)(producer % 7);
  r.bytes = index * 3 + 1;
  r.remote = index * 8 + producer;
  r.local = ~(index * 131 + producer);
  r.value = ((unsigned long long)producer << 32) | index;
  r.aux = index ^ 0x5a5a5a5a5a5a5a5aull;
  r.sub_op = producer * 2 + 1;
  r.flags = producer;
  return r;
}

bool matches(const gd::proxy_request &r) {
  const unsigned producer = r.flags;
  const unsigned long long index = r.value & 0xffffffffull;
  const gd::proxy_request e = make_request(producer, index, r.op);
  return (r.value >> 32) == producer && r.pe == e.pe && r.bytes == e.bytes && r.remote == e.remote &&
         r.local == e.local && r.aux == e.aux && r.sub_op == e.sub_op;
}

unsigned long long load(const unsigned long long *p) {
  return gd::atomic_load<gshmem::memory_order::acquire, gshmem::thread_scope::system>(p);
}

// Waits (bounded) until pred() holds; false on timeout.
template <class Pred>
bool eventually(Pred pred, double seconds = 10) {
  const auto end = clock_type::now() + std::chrono::duration<double>(seconds);
  while (!pred()) {
    if (clock_type::now() > end) return false;
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
  return true;
}

// What a consumer saw: every request in the order consumed, with its ticket.
struct Seen {
  gd::proxy_request request;
  unsigned long long ticket;
};

// Consumes until `total` requests were seen (or a time limit passes),
// publishing completion after each batch.
std::vector<Seen> consume_all(const gd::proxy_queue &q, unsigned long long total, unsigned long long batch = 8,
                              double seconds = 20) {
  std::vector<Seen> seen;
  seen.reserve((size_t)total);
  unsigned long long next = load(q.head);
  const auto end = clock_type::now() + std::chrono::duration<double>(seconds);
  while (seen.size() < total && clock_type::now() < end) {
    const unsigned long long n = gd::proxy_consume(q, &next, batch, [&](const gd::proxy_request &r, unsigned long long t) {
      seen.push_back({r, t});
      return true;
    });
    if (n == 0) std::this_thread::yield();
    else gd::proxy_publish_completed(q, next);
  }
  return seen;
}

// Per producer, the indexes in the order consumed; checks the ticket order.
struct Census {
  std::vector<std::vector<unsigned long long>> per_producer;
  size_t malformed = 0;
  size_t out_of_ticket_order = 0;
};

Census census(const std::vector<Seen> &seen, unsigned producers) {
  Census c;
  c.per_producer.resize(producers);
  for (size_t i = 0; i < seen.size(); ++i) {
    const gd::proxy_request &r = seen[i].request;
    if (!matches(r) || r.flags >= producers) {
      ++c.malformed;
      continue;
    }
    if (seen[i].ticket != i) ++c.out_of_ticket_order;  // consumed in ticket order, no gap
    c.per_producer[r.flags].push_back(r.value & 0xffffffffull);
  }
  return c;
}

// Every producer's requests 0..n-1, each once, in its issue order.
void check_exactly_once_in_order(const Census &c, unsigned long long n) {
  CHECK(c.malformed == 0);
  CHECK(c.out_of_ticket_order == 0);
  for (size_t p = 0; p < c.per_producer.size(); ++p) {
    INFO("producer " << p);
    const auto &v = c.per_producer[p];
    REQUIRE(v.size() == n);
    size_t wrong = 0;
    for (size_t i = 0; i < v.size(); ++i) wrong += v[i] != i;
    CHECK(wrong == 0);
  }
}

}  // namespace

TEST_CASE("queue: one thread, requests come out in ticket order with every field", "[queue]") {
  HostProxyQueue storage(8);
  const gd::proxy_queue &q = storage.view();
  gd::proxy_request out{};
  unsigned long long next = 0;
  CHECK_FALSE(gd::proxy_peek(q, 0, &out));  // nothing published
  for (unsigned lap = 0; lap < 5; ++lap) {
    // 6 requests a lap over 8 slots: laps wrap around the ring.
    for (unsigned long long i = 0; i < 6; ++i) {
      unsigned long long t = ~0ull;
      REQUIRE(gd::proxy_issue(q, make_request(lap, i), &t));
      CHECK(t == lap * 6 + i);
    }
    CHECK(load(q.tail) == (lap + 1) * 6ull);
    std::vector<Seen> seen;
    const unsigned long long n = gd::proxy_consume(q, &next, 100, [&](const gd::proxy_request &r, unsigned long long t) {
      seen.push_back({r, t});
      return true;
    });
    REQUIRE(n == 6);
    CHECK(next == (lap + 1) * 6ull);
    CHECK(load(q.head) == next);
    for (unsigned long long i = 0; i < 6; ++i) {
      CHECK(matches(seen[i].request));
      CHECK(seen[i].request.flags == lap);
      CHECK((seen[i].request.value & 0xffffffffull) == i);
      CHECK(seen[i].ticket == lap * 6 + i);
      CHECK(seen[i].request.seq == seen[i].ticket + 1);
    }
    // A slot's value from the last lap is not taken for a new request.
    CHECK_FALSE(gd::proxy_peek(q, next, &out));
  }
}

TEST_CASE("queue: tickets taken together are consumed in ticket order, whatever the publication order", "[queue]") {
  HostProxyQueue storage(8);
  const gd::proxy_queue &q = storage.view();
  // A warp's leader takes 5 tickets with one fetch_add; its lanes publish
  // in any order.
  const unsigned long long base = gd::proxy_reserve(q, 5);
  CHECK(base == 0);
  CHECK(load(q.tail) == 5);
  unsigned long long next = 0;
  auto count = [&] {
    return gd::proxy_consume(q, &next, 100, [](const gd::proxy_request &, unsigned long long) { return true; });
  };
  for (unsigned long long lane = 4; lane >= 1; --lane) {
    REQUIRE(gd::proxy_wait_slot(q, base + lane));
    gd::proxy_publish(q, base + lane, make_request(0, lane));
  }
  CHECK(count() == 0);  // ticket 0 is not published yet: nothing after it is taken
  CHECK(load(q.head) == 0);
  REQUIRE(gd::proxy_wait_slot(q, base));
  gd::proxy_publish(q, base, make_request(0, 0));
  std::vector<unsigned long long> order;
  next = 0;
  gd::proxy_consume(q, &next, 100, [&](const gd::proxy_request &r, unsigned long long t) {
    order.push_back(t * 1000 + (r.value & 0xffffffffull));
    return true;
  });
  CHECK(order == std::vector<unsigned long long>{0, 1001, 2002, 3003, 4004});
}

TEST_CASE("queue: a full queue blocks its producers; nothing is lost, overwritten or duplicated", "[queue]") {
  const bool with_head_seen = GENERATE(true, false);
  INFO("head_seen " << with_head_seen);
  const unsigned long long capacity = 4;
  HostProxyQueue storage(capacity, with_head_seen);
  const gd::proxy_queue &q = storage.view();
  const unsigned producers = 4;
  // More than the ring holds: no producer can finish inside the first lap.
  const unsigned long long per_producer = 6;
  std::atomic<unsigned long long> published{0};
  std::vector<std::thread> threads;
  for (unsigned p = 0; p < producers; ++p)
    threads.emplace_back([&, p] {
      for (unsigned long long i = 0; i < per_producer; ++i) {
        gd::proxy_issue(q, make_request(p, i));
        published.fetch_add(1);
      }
    });
  // No consumer yet: exactly `capacity` requests get in; every producer then
  // holds one more ticket and waits for its slot.
  CHECK(eventually([&] { return published.load() == capacity && load(q.tail) == capacity + producers; }));
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  CHECK(published.load() == capacity);  // still blocked: back-pressure, not overwrite
  CHECK(load(q.tail) == capacity + producers);
  for (unsigned long long t = 0; t < capacity; ++t) {
    gd::proxy_request r{};
    const bool published_here = gd::proxy_peek(q, t, &r);  // the first lap is intact
    CHECK(published_here);
    CHECK((published_here && matches(r)));
  }
  // Now drain: every request exactly once, each producer's in its order.
  const std::vector<Seen> seen = consume_all(q, producers * per_producer, /*batch=*/1);
  for (auto &t : threads) t.join();
  CHECK(seen.size() == producers * per_producer);
  check_exactly_once_in_order(census(seen, producers), per_producer);
  CHECK(load(q.completed) == producers * per_producer);
}

TEST_CASE("queue: many producers, one consumer, thousands of laps over a small ring", "[queue]") {
  const bool with_head_seen = GENERATE(true, false);
  INFO("head_seen " << with_head_seen);
  const unsigned long long capacity = 16;
  const unsigned producers = 6;
  const unsigned long long per_producer = 20000;
  const unsigned long long total = producers * per_producer;
  HostProxyQueue storage(capacity, with_head_seen);
  const gd::proxy_queue &q = storage.view();
  std::vector<Seen> seen;
  std::thread consumer([&] { seen = consume_all(q, total, /*batch=*/5, /*seconds=*/60); });
  std::vector<std::thread> threads;
  for (unsigned p = 0; p < producers; ++p)
    threads.emplace_back([&, p] {
      for (unsigned long long i = 0; i < per_producer; ++i) gd::proxy_issue(q, make_request(p, i));
    });
  for (auto &t : threads) t.join();
  consumer.join();
  REQUIRE(seen.size() == total);
  CHECK(total / capacity >= 3000);  // laps around the ring
  check_exactly_once_in_order(census(seen, producers), per_producer);
  CHECK(load(q.tail) == total);
  CHECK(load(q.head) == total);
  if (with_head_seen) CHECK(load(q.head_seen) <= total);
}

TEST_CASE("queue: a signal issued after data is consumed after that data", "[queue]") {
  const unsigned long long capacity = 8;
  HostProxyQueue storage(capacity);
  const gd::proxy_queue &q = storage.view();
  const unsigned producers = 4;
  const unsigned long long rounds = 1000, data_per_round = 5;

  SECTION("the same thread: data, then its signal") {
    const unsigned long long total = producers * rounds * (data_per_round + 1);
    std::vector<Seen> seen;
    std::thread consumer([&] { seen = consume_all(q, total, 3); });
    std::vector<std::thread> threads;
    for (unsigned p = 0; p < producers; ++p)
      threads.emplace_back([&, p] {
        unsigned long long index = 0;
        for (unsigned long long round = 0; round < rounds; ++round) {
          for (unsigned long long d = 0; d < data_per_round; ++d) gd::proxy_issue(q, make_request(p, index++));
          gd::proxy_issue(q, make_request(p, index++, gd::proxy_op_signal));
        }
      });
    for (auto &t : threads) t.join();
    consumer.join();
    REQUIRE(seen.size() == total);
    // When a producer's signal is consumed, all its data before it was.
    std::vector<unsigned long long> data_seen(producers, 0), signals(producers, 0);
    size_t early = 0;
    for (const Seen &s : seen) {
      const unsigned p = s.request.flags;
      if (s.request.op == gd::proxy_op_signal) {
        ++signals[p];
        early += data_seen[p] != signals[p] * data_per_round;
      } else {
        ++data_seen[p];
      }
    }
    CHECK(early == 0);
    for (unsigned p = 0; p < producers; ++p) CHECK(signals[p] == rounds);
  }

  SECTION("another thread: data, a release, then the acquirer's signal") {
    // Thread A issues data, then raises a flag (release); thread B sees the
    // flag (acquire), then issues the signal. Ticket order follows
    // happens-before: the signal is consumed after every datum of A's round.
    const unsigned long long total = rounds * (data_per_round + 1);
    std::vector<Seen> seen;
    std::thread consumer([&] { seen = consume_all(q, total, 2); });
    unsigned long long flag = 0;
    std::thread a([&] {
      for (unsigned long long round = 0; round < rounds; ++round) {
        for (unsigned long long d = 0; d < data_per_round; ++d)
          gd::proxy_issue(q, make_request(0, round * data_per_round + d));
        gd::atomic_store<gshmem::memory_order::release, gshmem::thread_scope::system>(&flag, round + 1);
        while (gd::atomic_load<gshmem::memory_order::acquire, gshmem::thread_scope::system>(&flag) != 0)
          std::this_thread::yield();
      }
    });
    std::thread b([&] {
      for (unsigned long long round = 0; round < rounds; ++round) {
        while (gd::atomic_load<gshmem::memory_order::acquire, gshmem::thread_scope::system>(&flag) != round + 1)
          std::this_thread::yield();
        gd::proxy_issue(q, make_request(1, round, gd::proxy_op_signal));
        gd::atomic_store<gshmem::memory_order::release, gshmem::thread_scope::system>(&flag, 0ull);
      }
    });
    a.join();
    b.join();
    consumer.join();
    REQUIRE(seen.size() == total);
    unsigned long long data = 0, signals = 0;
    size_t early = 0;
    for (const Seen &s : seen) {
      if (s.request.op == gd::proxy_op_signal) {
        ++signals;
        early += data != signals * data_per_round;
      } else {
        ++data;
      }
    }
    CHECK(early == 0);
    CHECK(signals == rounds);
  }
}

TEST_CASE("queue: quiet returns only after the consumer carried out every earlier request", "[queue]") {
  const unsigned long long capacity = 8;
  HostProxyQueue storage(capacity);
  const gd::proxy_queue &q = storage.view();
  const unsigned producers = 4;
  const unsigned long long rounds = 200, per_round = 3;
  const unsigned long long total = producers * rounds * per_round;
  // done[p][i]: the consumer "carried out" producer p's request i. Written by
  // the consumer before it publishes completion, read by p after its quiet:
  // ordered by the completion counter (release/acquire) and nothing else.
  std::vector<std::vector<unsigned char>> done(producers, std::vector<unsigned char>(rounds * per_round, 0));
  std::atomic<bool> stop{false};
  std::thread consumer([&] {
    unsigned long long next = 0, batches = 0;
    while (!stop.load()) {
      const unsigned long long n = gd::proxy_consume(q, &next, 4, [&](const gd::proxy_request &r, unsigned long long) {
        done[r.flags][r.value & 0xffffffffull] = 1;
        return true;
      });
      if (n == 0) {
        std::this_thread::yield();
        continue;
      }
      // Complete late now and then, so that a quiet that returned early
      // would find undone requests.
      if (++batches % 3 == 0) std::this_thread::sleep_for(std::chrono::microseconds(50));
      gd::proxy_publish_completed(q, next);
    }
  });
  std::vector<unsigned long long> missing(producers, 0), short_target(producers, 0);
  std::vector<std::thread> threads;
  for (unsigned p = 0; p < producers; ++p)
    threads.emplace_back([&, p] {
      unsigned long long index = 0;
      for (unsigned long long round = 0; round < rounds; ++round) {
        unsigned long long last = 0;
        for (unsigned long long k = 0; k < per_round; ++k) gd::proxy_issue(q, make_request(p, index++), &last);
        const unsigned long long target = gd::proxy_quiet_target(q);
        short_target[p] += target < last + 1;
        gd::proxy_wait_completed(q, target);
        for (unsigned long long i = 0; i < index; ++i) missing[p] += done[p][i] == 0;
      }
    });
  for (auto &t : threads) t.join();
  stop.store(true);
  consumer.join();
  for (unsigned p = 0; p < producers; ++p) {
    INFO("producer " << p);
    CHECK(short_target[p] == 0);
    CHECK(missing[p] == 0);
  }
  CHECK(load(q.completed) == total);
  CHECK(gd::proxy_test_completed(q, total));
  CHECK_FALSE(gd::proxy_test_completed(q, total + 1));
}

TEST_CASE("queue: waits give up when told to, instead of hanging", "[queue]") {
  HostProxyQueue storage(2);
  const gd::proxy_queue &q = storage.view();
  REQUIRE(gd::proxy_issue(q, make_request(0, 0)));
  REQUIRE(gd::proxy_issue(q, make_request(0, 1)));
  int looks = 0;
  auto give_up_after_100 = [&looks] { return ++looks < 100; };
  unsigned long long t = 0;
  CHECK_FALSE(gd::proxy_issue(q, make_request(0, 2), &t, give_up_after_100));  // full, no consumer
  CHECK(t == 2);
  CHECK(looks == 100);
  looks = 0;
  CHECK_FALSE(gd::proxy_wait_completed(q, 1, give_up_after_100));  // nothing completes
  CHECK(looks == 100);
  // The two published requests are intact.
  gd::proxy_request r{};
  REQUIRE(gd::proxy_peek(q, 1, &r));
  CHECK(matches(r));
  CHECK((r.value & 0xffffffffull) == 1);
}

TEST_CASE("queue: a capacity that is not a power of two is refused", "[queue]") {
  CHECK(gd::proxy_capacity_valid(1));
  CHECK(gd::proxy_capacity_valid(1024));
  CHECK_FALSE(gd::proxy_capacity_valid(0));
  CHECK_FALSE(gd::proxy_capacity_valid(12));
  CHECK_THROWS_AS(HostProxyQueue(12), std::invalid_argument);
}
