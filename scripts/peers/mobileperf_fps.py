"""Drive alibaba/mobileperf's FPS collector over a captured framestats file.

Usage: python3 mobileperf_fps.py MOBILEPERF_SRC CAPTURE

MOBILEPERF_SRC is a checkout of github.com/alibaba/mobileperf (scripts/bench-peers.sh extracts
one from the fetched mirror; nothing of it is in this repository). The capture is cut into its
dumps, and each dump is handed to mobileperf's own SurfaceStatsCollector as the answer of
`dumpsys gfxinfo <pkg> framestats`, as its collector thread polls it: its parser
(_get_surfaceflinger_frame_data), its repeat filter (the collector thread's, replayed here
without the sleeps and queues) and its fps/jank per dump (_calculate_results_new).
Prints: dumps, frames kept, mean fps, jank total.
"""
import os
import sys
import tempfile


class FakeAdb:
    def __init__(self):
        self.dump = ""

    def get_sdk_version(self):
        return 29

    def run_shell_cmd(self, cmd):
        if cmd.startswith("dumpsys SurfaceFlinger --latency"):
            return "16666667\n"
        return self.dump


class FakeDevice:
    def __init__(self):
        self.adb = FakeAdb()


def main():
    src, capture = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    os.chdir(tempfile.mkdtemp(prefix="mobileperf-"))  # it creates log directories in the cwd
    sys.path.insert(0, src)
    from mobileperf.android.fps import SurfaceStatsCollector

    device = FakeDevice()
    c = SurfaceStatsCollector(device, 1, "com.example.feed", None, 166)
    c.focus_window = "com.example.feed/com.example.feed.MainActivity"
    with open(capture, encoding="utf-8", errors="replace") as f:
        text = f.read()
    marker = "Applications Graphics Acceleration Info:"
    dumps = frames = jank = 0
    fps_sum = 0
    is_first = True
    for part in text.split(marker)[1:]:
        device.adb.dump = marker + part
        dumps += 1
        refresh_period, new = c._get_surfaceflinger_frame_data()
        if refresh_period is None or new is None:
            continue
        # mobileperf's _collector_thread: keep the frames newer than the last one seen.
        timestamps = [t for t in new if t[1] > c.last_timestamp]
        if timestamps:
            if not is_first:
                timestamps = [[0, c.last_timestamp, 0]] + timestamps
            c.last_timestamp = timestamps[-1][1]
            is_first = False
        else:
            is_first = True
            continue
        fps, j = c._calculate_results_new(refresh_period, timestamps)
        frames += len(timestamps)
        fps_sum += fps
        jank += j
    print("dumps=%d frames=%d mean_fps=%.2f jank=%d" % (dumps, frames, fps_sum / max(dumps, 1), jank))


if __name__ == "__main__":
    main()
