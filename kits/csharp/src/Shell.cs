// The protocol shell: framing (one JSON object a line), ids, hello with ops and capabilities,
// versions, batches, bye, request-level errors, the live tables' journal in state_dir and (Since
// 1.0) build.authenticate: the keyed digests (HMAC-SHA256) of the files of this build.
// A vendor never edits this file; it subclasses Vendor (Vendor.cs) and calls Shell.Serve.
using System;
using System.Collections.Generic;
using System.IO;
using System.Numerics;
using System.Security.Cryptography;
using System.Text;
using System.Text.RegularExpressions;
using Mono.Unix.Native;
using Newtonsoft.Json;
using Newtonsoft.Json.Linq;

namespace Tablecert.Kit
{
    public sealed class Shell
    {
        const string Protocol = "tablecert-vendor/2";
        const string Authenticate = "build.authenticate";   // Since 1.0: the keyed digests of the vendor's own files
        static readonly string[] LiveOps = { "table.open", "table.step", "table.resume", "table.recall", "table.close" };
        readonly Vendor vendor;
        Journal journal;
        bool done;

        Shell(Vendor vendor) { this.vendor = vendor; }

        /// <summary>Answers requests on stdin, one JSON line each, until bye or end of input; returns the exit status.</summary>
        public static int Serve(Vendor vendor)
        {
            var shell = new Shell(vendor);
            var utf8 = new UTF8Encoding(false);
            var input = new StreamReader(Console.OpenStandardInput(), utf8, false, 1 << 16);
            // The protocol owns standard output: whatever else the program prints goes to standard error.
            var output = new StreamWriter(Console.OpenStandardOutput(), utf8, 1 << 16);
            Console.SetOut(Console.Error);
            for (string line; !shell.done && (line = input.ReadLine()) != null;)
            {
                if (line.Trim().Length == 0) continue;
                output.Write(shell.Answer(line).ToString(Formatting.None));
                output.Write('\n');
                output.Flush();
            }
            return 0;
        }

        internal static JObject Error(string code, string message)
        {
            return new JObject { { "code", code }, { "message", message } };
        }

        static JObject With(JToken id, string key, JToken value)
        {
            return new JObject { { "id", id }, { key, value } };
        }

        internal static JToken Parse(string line)
        {
            var reader = new JsonTextReader(new StringReader(line)) { DateParseHandling = DateParseHandling.None };
            var token = JToken.ReadFrom(reader);
            if (reader.Read()) throw new JsonReaderException("trailing characters");
            return token;
        }

        JObject Answer(string line)
        {
            JToken request;
            try { request = Parse(line); }
            catch (JsonException err) { return With(JValue.CreateNull(), "error", Error("invalid_request", "not JSON: " + err.Message)); }
            var obj = request as JObject;
            if (obj == null) return With(JValue.CreateNull(), "error", Error("invalid_request", "a request must be a JSON object"));
            var id = obj["id"];
            if (id == null || id.Type != JTokenType.Integer) return With(JValue.CreateNull(), "error", Error("invalid_request", "'id' must be an integer"));
            var op = obj["op"] != null && obj["op"].Type == JTokenType.String ? (string)obj["op"] : "";
            if (op == "hello") return Hello(id, obj);
            if (op == "bye") { done = true; return new JObject { { "id", id } }; }
            if (op == Authenticate) return AuthenticateBuild(id, obj);
            if (!vendor.Ops.Contains(op)) return With(id, "error", Error("unknown_op", "unknown op '" + op + "'"));
            if (Array.IndexOf(LiveOps, op) >= 0) return Live(id, op, obj);
            var cases = obj["cases"] as JArray;
            if (cases == null) return With(id, "error", Error("invalid_request", "'cases' must be a list"));
            var config = obj["config"] ?? JValue.CreateNull();
            var results = new JArray();
            foreach (var c in cases) results.Add(One(op, config, c));
            return With(id, "results", results);
        }

        JObject One(string op, JToken config, JToken c)
        {
            try
            {
                switch (op)
                {
                    case "craps.odds_limits": return vendor.OddsLimits(config, c);
                    case "craps.place_odds": return vendor.PlaceOdds(config, c);
                    case "craps.settle": return vendor.Settle(config, c);
                    case "craps.round": return vendor.Round(config, c);
                    case "paigow.player_bonus": return new JObject { { "hand", vendor.PlayerLabel(config, c) } };
                    case "paigow.banker_bonus": return new JObject { { "hand", vendor.BankerLabel(config, c) } };
                    case "paigow.settle": return vendor.PaigowSettle(config, c);
                    default: throw new NotSupportedException(op);
                }
            }
            catch (CaseError err) { return new JObject { { "error", Error(err.Code, err.Message) } }; }
            catch (ConfigError err) { return new JObject { { "error", Error("invalid_config", err.Message) } }; }
        }

        JObject Hello(JToken id, JObject request)
        {
            var asked = request["protocol"];
            if (asked == null || asked.Type != JTokenType.String || (string)asked != Protocol)
                return With(id, "error", Error("unsupported_protocol", "this vendor speaks " + Protocol));
            var stateDir = request["state_dir"];
            if (stateDir != null && stateDir.Type == JTokenType.String)
            {
                try { journal = new Journal(vendor, (string)stateDir); }
                catch (Exception err) { return With(id, "error", Error("invalid_request", "state_dir: " + err.Message)); }
            }
            var answer = new JObject { { "id", id }, { "protocol", Protocol }, { "implementation", vendor.Implementation },
                                       { "ops", new JArray(vendor.Ops) } };
            ((JArray)answer["ops"]).Add(Authenticate);
            if (vendor.Capabilities != null) answer["capabilities"] = vendor.Capabilities;
            return answer;
        }

        /// <summary>
        /// build.authenticate: HMAC-SHA256, keyed with the seed's bytes, of each named file of this
        /// build, paths relative to the folder of the program's assembly (build/); a path that is
        /// absolute, holds '..', passes through a link or is not a regular file is answered null.
        /// Files are read through Mono.Posix (no link followed), not System.IO.
        /// </summary>
        JObject AuthenticateBuild(JToken id, JObject request)
        {
            var seed = request["seed"];
            var files = request["files"] as JArray;
            var hex = seed != null && seed.Type == JTokenType.String ? (string)seed : "";
            if (hex.Length == 0 || hex.Length % 2 != 0 || !Regex.IsMatch(hex, @"\A[0-9a-fA-F]+\z") || files == null)
                return With(id, "error", Error("invalid_request", "build.authenticate takes 'seed' (hex) and 'files' (a list of paths)"));
            var key = new byte[hex.Length / 2];
            for (int i = 0; i < key.Length; i++) key[i] = Convert.ToByte(hex.Substring(2 * i, 2), 16);
            var root = Path.GetDirectoryName(System.Reflection.Assembly.GetEntryAssembly().Location);
            var answers = new JObject();
            foreach (var f in files)
            {
                if (f.Type != JTokenType.String) return With(id, "error", Error("invalid_request", "'files' must be a list of paths"));
                answers[(string)f] = Keyed(root, (string)f, key);
            }
            return With(id, "result", new JObject { { "files", answers } });
        }

        static JToken Keyed(string root, string name, byte[] key)
        {
            var parts = name.Split('/');
            if (name.Length == 0 || name.StartsWith("/") || Array.Exists(parts, p => p.Length == 0 || p == "." || p == ".."))
                return JValue.CreateNull();
            var path = root;
            Stat st;
            foreach (var part in parts)     // no link on the way: each component stat'ed without following it
            {
                path = path + "/" + part;
                if (Syscall.lstat(path, out st) != 0 || (st.st_mode & FilePermissions.S_IFMT) == FilePermissions.S_IFLNK)
                    return JValue.CreateNull();
            }
            int fd = Syscall.open(path, OpenFlags.O_RDONLY | OpenFlags.O_NOFOLLOW | OpenFlags.O_NONBLOCK | OpenFlags.O_CLOEXEC);
            if (fd < 0) return JValue.CreateNull();
            using (var stream = new Mono.Unix.UnixStream(fd, true))
            using (var hmac = new HMACSHA256(key))
            {
                if (Syscall.fstat(fd, out st) != 0 || (st.st_mode & FilePermissions.S_IFMT) != FilePermissions.S_IFREG)
                    return JValue.CreateNull();
                var chunk = new byte[1 << 16];
                for (int n; (n = stream.Read(chunk, 0, chunk.Length)) > 0;) hmac.TransformBlock(chunk, 0, n, null, 0);
                hmac.TransformFinalBlock(chunk, 0, 0);
                return new JValue(BitConverter.ToString(hmac.Hash).Replace("-", "").ToLowerInvariant());
            }
        }

        JObject Live(JToken id, string op, JObject request)
        {
            if (journal == null) return With(id, "error", Error("no_state_dir", "the hello named no state_dir"));
            try { return With(id, "result", journal.Handle(op, request)); }
            catch (CaseError err) { return With(id, "error", Error(err.Code, err.Message)); }
        }

        /// <summary>
        /// The live tables of one state_dir: an append-only journal, each entry fsync'd before the
        /// answer, replayed at start (a last line cut short by a kill was never answered: dropped).
        /// </summary>
        sealed class Journal
        {
            static readonly Regex TableId = new Regex(@"\A[A-Za-z0-9._-]{1,64}\z");
            readonly Vendor vendor;
            readonly int fd;
            readonly Mono.Unix.UnixStream stream;
            readonly Dictionary<string, JToken> states = new Dictionary<string, JToken>();
            readonly Dictionary<string, long> steps = new Dictionary<string, long>();

            public Journal(Vendor vendor, string stateDir)
            {
                this.vendor = vendor;
                var path = Path.Combine(stateDir, "tables.journal");
                if (File.Exists(path))
                {
                    var data = File.ReadAllBytes(path);
                    int whole = data.Length;
                    while (whole > 0 && data[whole - 1] != (byte)'\n') whole--;
                    if (whole != data.Length && Syscall.truncate(path, whole) != 0) throw new IOException("cannot truncate the journal");
                    foreach (var line in Encoding.UTF8.GetString(data, 0, whole).Split('\n'))
                        if (line.Length > 0) Apply((JObject)Parse(line));
                }
                fd = Syscall.open(path, OpenFlags.O_WRONLY | OpenFlags.O_APPEND | OpenFlags.O_CREAT | OpenFlags.O_CLOEXEC,
                                  FilePermissions.S_IRUSR | FilePermissions.S_IWUSR);
                if (fd < 0) throw new IOException("cannot open " + path);
                stream = new Mono.Unix.UnixStream(fd, true);
            }

            public JToken Handle(string op, JObject request)
            {
                var id = request["table"];
                if (id == null || id.Type != JTokenType.String || !TableId.IsMatch((string)id))
                    throw new CaseError("invalid_request", "'table' must be 1 to 64 letters, digits, '.', '_' or '-'");
                var name = (string)id;
                if (op == "table.open")
                {
                    if (states.ContainsKey(name)) throw new CaseError("table_exists", "table " + name + " is open");
                    var rack = request["rack"];
                    if (rack == null || rack.Type != JTokenType.Integer || ((JValue)rack).Value is BigInteger || (long)rack < 0 || (long)rack > 9007199254740991L)
                        throw new CaseError("invalid_request", "'rack' must be an integer from 0 to 2^53 - 1");
                    var game = request["game"] ?? new JValue("craps");
                    if (game.Type != JTokenType.String || ((string)game != "craps" && (string)game != "paigow"))
                        throw new CaseError("invalid_request", "'game' must be craps or paigow");
                    var entry = new JObject { { "open", name }, { "config", request["config"] ?? JValue.CreateNull() }, { "rack", rack }, { "game", game } };
                    var state = Open(entry);      // refused before anything is journaled
                    Append(entry);
                    states[name] = state;
                    steps[name] = 0;
                    return new JObject { { "steps", 0 }, { "table", vendor.TableView(state) } };
                }
                if (!states.ContainsKey(name)) throw new CaseError("no_such_table", "no open table " + name);
                switch (op)
                {
                    case "table.step":
                        var seq = request["seq"];
                        if (seq == null || seq.Type != JTokenType.Integer || seq.ToString() != steps[name].ToString())
                            throw new CaseError("out_of_sequence", "the table has played " + steps[name] + " steps");
                        var step = request["step"] ?? JValue.CreateNull();
                        var next = states[name].DeepClone();
                        var record = vendor.TableStep(next, step);   // may refuse: nothing journaled
                        Append(new JObject { { "step", name }, { "seq", seq }, { "act", step } });
                        states[name] = next;
                        steps[name] += 1;
                        return record;
                    case "table.resume":
                        return new JObject { { "steps", steps[name] }, { "table", vendor.TableView(states[name]) } };
                    case "table.recall":
                        return new JObject { { "games", vendor.TableRecall(states[name]) } };
                    default:
                        Append(new JObject { { "close", name } });
                        states.Remove(name);
                        steps.Remove(name);
                        return new JObject();
                }
            }

            JToken Open(JObject entry)
            {
                try { return vendor.TableOpen(entry["config"], (long)entry["rack"], (string)entry["game"]); }
                catch (ConfigError err) { throw new CaseError("invalid_config", err.Message); }
            }

            void Apply(JObject entry)   // replay: what the entry did when it was answered
            {
                if (entry["open"] != null) { states[(string)entry["open"]] = Open(entry); steps[(string)entry["open"]] = 0; }
                else if (entry["close"] != null) { states.Remove((string)entry["close"]); steps.Remove((string)entry["close"]); }
                else { var name = (string)entry["step"]; vendor.TableStep(states[name], entry["act"]); steps[name] += 1; }
            }

            void Append(JObject entry)   // one write, on disk before the answer is sent
            {
                var line = Encoding.UTF8.GetBytes(entry.ToString(Formatting.None) + "\n");
                stream.Write(line, 0, line.Length);
                if (Syscall.fsync(fd) != 0) throw new IOException("journal fsync failed");
            }
        }
    }
}
