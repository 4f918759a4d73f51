#include "tests/distributed/harness.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sstream>
#include <thread>

#include <gtest/gtest.h>

#include "src/distributed/gloo_blocking_collectives.h"

extern char** environ;

namespace dist_test {

namespace {

std::map<std::string, WorkerFn>& workers() {
  static std::map<std::string, WorkerFn> w;
  return w;
}

int env_int(const char* name) {
  const char* v = std::getenv(name);
  if (!v) throw std::runtime_error(fmt::format("worker: {} is not set", name));
  return std::atoi(v);
}

}  // namespace

bool register_worker(const char* name, WorkerFn fn) {
  workers()[name] = fn;
  return true;
}

int env_rank() { return env_int("RANK"); }
int env_world_size() { return env_int("WORLD_SIZE"); }

int run_worker_from_arg(const std::string& arg) {
  const std::string name = arg.substr(arg.find('=') + 1);
  auto it = workers().find(name);
  if (it == workers().end()) {
    std::cerr << "no worker named " << name << "\n";
    return 2;
  }
  try {
    it->second();
  } catch (const std::exception& e) {
    std::cerr << "worker " << name << " rank " << std::getenv("RANK") << " FAILED: " << e.what()
              << "\n";
    return 1;
  }
  return 0;
}

void expect_ranks_ok(const std::vector<RankExit>& exits) {
  for (size_t r = 0; r < exits.size(); ++r) {
    EXPECT_FALSE(exits[r].timed_out) << "rank " << r << " hung:\n" << exits[r].output;
    EXPECT_EQ(exits[r].code, 0) << "rank " << r << ":\n" << exits[r].output;
  }
}

int listen_loopback(int backlog, int* port) {
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof(addr);
  if (fd < 0 || ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0 ||
      (backlog >= 0 && ::listen(fd, backlog) != 0) ||
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
    if (fd >= 0) ::close(fd);
    return -1;
  }
  *port = ntohs(addr.sin_port);
  return fd;
}

bool blocking_collectives_possible() {
  return ember::distributed::blocking_message_limit_here() > 0;
}

int free_port() {
  int port = 0;
  const int fd = listen_loopback(-1, &port);
  if (fd >= 0) ::close(fd);
  return port;
}

std::vector<RankExit> run_ranks(const Launch& launch) {
  std::vector<int> ranks = launch.ranks;
  if (ranks.empty())
    for (int r = 0; r < launch.world_size; ++r) ranks.push_back(r);
  const int port = free_port();
  const std::string self = "/proc/self/exe";
  std::vector<pid_t> pids;
  std::vector<std::string> logs;
  for (int r : ranks) {
    std::map<std::string, std::string> env;
    for (char** e = environ; *e; ++e) {
      std::string kv(*e);
      auto eq = kv.find('=');
      if (eq != std::string::npos) env[kv.substr(0, eq)] = kv.substr(eq + 1);
    }
    env["MASTER_ADDR"] = "127.0.0.1";
    env["MASTER_PORT"] = std::to_string(port);
    env["RANK"] = std::to_string(r);
    env["LOCAL_RANK"] = std::to_string(r);
    env["WORLD_SIZE"] = std::to_string(launch.world_size);
    // One thread per rank: the ranks share this machine's cores.
    env["OMP_NUM_THREADS"] = "1";
    for (const auto& [k, v] : launch.env) env[k] = v;
    auto per = launch.rank_env.find(r);
    if (per != launch.rank_env.end())
      for (const auto& [k, v] : per->second) env[k] = v;
    std::vector<std::string> env_strings;
    for (const auto& [k, v] : env) env_strings.push_back(k + "=" + v);
    std::vector<char*> envp;
    for (auto& s : env_strings) envp.push_back(s.data());
    envp.push_back(nullptr);

    char log_template[] = "/tmp/ember_dist_rank_XXXXXX";
    int log_fd = ::mkstemp(log_template);
    logs.push_back(log_template);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, log_fd, 1);
    posix_spawn_file_actions_adddup2(&actions, log_fd, 2);
    std::string arg = "--ember-dist-worker=" + launch.worker;
    char* argv[] = {const_cast<char*>(self.c_str()), arg.data(), nullptr};
    pid_t pid = -1;
    int rc = posix_spawn(&pid, self.c_str(), &actions, nullptr, argv, envp.data());
    posix_spawn_file_actions_destroy(&actions);
    ::close(log_fd);
    if (rc != 0) throw std::runtime_error("posix_spawn failed");
    pids.push_back(pid);
  }

  std::vector<RankExit> exits(ranks.size());
  std::vector<bool> done(ranks.size(), false);
  const auto deadline = std::chrono::steady_clock::now() + launch.deadline;
  size_t left = ranks.size();
  while (left > 0) {
    for (size_t i = 0; i < pids.size(); ++i) {
      if (done[i]) continue;
      int status = 0;
      if (::waitpid(pids[i], &status, WNOHANG) == pids[i]) {
        done[i] = true;
        --left;
        exits[i].code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
      }
    }
    if (left == 0) break;
    if (std::chrono::steady_clock::now() > deadline) {
      for (size_t i = 0; i < pids.size(); ++i) {
        if (done[i]) continue;
        ::kill(pids[i], SIGKILL);
        int status = 0;
        ::waitpid(pids[i], &status, 0);
        exits[i].timed_out = true;
        done[i] = true;
      }
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  for (size_t i = 0; i < logs.size(); ++i) {
    std::ifstream in(logs[i]);
    std::stringstream ss;
    ss << in.rdbuf();
    exits[i].output = ss.str();
    std::remove(logs[i].c_str());
  }
  return exits;
}

}  // namespace dist_test

int main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg.rfind("--ember-dist-worker=", 0) == 0) return dist_test::run_worker_from_arg(arg);
  }
  // Writes to a rank that has gone must not kill the test program.
  ::signal(SIGPIPE, SIG_IGN);
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
