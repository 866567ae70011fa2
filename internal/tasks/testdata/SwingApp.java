// The task suite's Swing app (OpenJDK 17, run as `java SwingApp.java STATEFILE`): a Name field,
// a Member check box, a Plan combo box, a Submit button and a Delete… button that asks for
// confirmation in a modal JOptionPane dialog. It reports its own state by rewriting the JSON file
// STATEFILE (atomically) on every change, independently of any accessibility answer.
import java.nio.file.*;
import javax.swing.*;

public class SwingApp {
    static Path state;
    static String name = "", plan = "Basic", deleted = "never", submittedName = "", submittedPlan = "";
    static boolean member, submittedMember;
    static int submitted;

    static String q(String s) { return "\"" + s.replace("\\", "\\\\").replace("\"", "\\\"") + "\""; }

    static synchronized void write() {
        String json = "{\"name\": " + q(name) + ", \"member\": " + member + ", \"plan\": " + q(plan)
            + ", \"submitted\": " + submitted + ", \"submittedName\": " + q(submittedName)
            + ", \"submittedPlan\": " + q(submittedPlan) + ", \"submittedMember\": " + submittedMember
            + ", \"deleted\": " + q(deleted) + "}";
        try {
            Path tmp = Paths.get(state + ".tmp");
            Files.writeString(tmp, json);
            Files.move(tmp, state, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } catch (Exception e) {
            e.printStackTrace();
        }
    }

    public static void main(String[] args) {
        state = Paths.get(args[0]);
        write();
        SwingUtilities.invokeLater(() -> {
            JFrame f = new JFrame("Tasks Swing App");
            f.setDefaultCloseOperation(JFrame.EXIT_ON_CLOSE);
            JPanel p = new JPanel();
            p.setLayout(new BoxLayout(p, BoxLayout.Y_AXIS));
            JTextField field = new JTextField(20);
            field.getAccessibleContext().setAccessibleName("Name");
            field.getDocument().addDocumentListener(new javax.swing.event.DocumentListener() {
                void upd() { name = field.getText(); write(); }
                public void insertUpdate(javax.swing.event.DocumentEvent e) { upd(); }
                public void removeUpdate(javax.swing.event.DocumentEvent e) { upd(); }
                public void changedUpdate(javax.swing.event.DocumentEvent e) { upd(); }
            });
            JCheckBox box = new JCheckBox("Member");
            box.addItemListener(e -> { member = box.isSelected(); write(); });
            JComboBox<String> combo = new JComboBox<>(new String[] {"Basic", "Pro", "Team"});
            combo.getAccessibleContext().setAccessibleName("Plan");
            combo.addActionListener(e -> { plan = (String) combo.getSelectedItem(); write(); });
            JButton submit = new JButton("Submit");
            submit.addActionListener(e -> {
                submitted++; submittedName = name; submittedPlan = plan; submittedMember = member; write();
            });
            JButton delete = new JButton("Delete…");
            delete.addActionListener(e -> {
                int r = JOptionPane.showConfirmDialog(f, "Delete the record?", "Confirm Delete", JOptionPane.YES_NO_OPTION);
                deleted = r == JOptionPane.YES_OPTION ? "yes" : "no";
                write();
            });
            p.add(field); p.add(box); p.add(combo); p.add(submit); p.add(delete);
            f.add(p);
            f.setSize(420, 260);
            f.setLocation(40, 40);
            f.setVisible(true);
        });
    }
}
