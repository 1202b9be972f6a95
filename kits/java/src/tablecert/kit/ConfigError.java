package tablecert.kit;

/** A malformed config: every case of the request is answered invalid_config. */
public class ConfigError extends RuntimeException {
    public ConfigError(String message) {
        super(message);
    }
}
