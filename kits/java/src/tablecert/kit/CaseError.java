package tablecert.kit;

/** A case refused with one of the contract's codes ("invalid_bet", "bad_increment", ...). */
public class CaseError extends RuntimeException {
    public final String code;

    public CaseError(String code, String message) {
        super(message);
        this.code = code;
    }
}
